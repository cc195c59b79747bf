package diagnose

import (
	"fmt"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// Stale is one upstream project a cluster runs at a newer version than the ledger's pin: the
// checks verified against the pin may encode what the newer version changed.
type Stale struct {
	Project Upstream
	// Pinned is the ledger's version; Running the image tag the cluster runs (the newest, when
	// several clusters or containers run the project).
	Pinned, Running string
	// Checks are the IDs of the checks with a Verified entry of the project, in catalogue order.
	Checks []string
}

// String says it in one line, e.g. "verified against amazon-vpc-cni-k8s v1.23.0, the cluster
// runs v1.24.1: eni-leaked, max-pods-exceeds-ip-capacity".
func (s Stale) String() string {
	return fmt.Sprintf("verified against %s %s, the cluster runs %s: %s",
		s.Project, s.Pinned, s.Running, strings.Join(s.Checks, ", "))
}

// StaleVerifications returns, in the ledger's order, the projects whose image the snapshot
// shows at a newer version than the ledger's pin, with those of checks that were verified
// against the pin. Only aws-node's image (the VPC CNI), its network policy agent container and
// Cilium's agent are read; an image without a version tag (a digest only, "latest") says nothing.
func StaleVerifications(s *snapshot.Snapshot, checks []Check) []Stale {
	return staleAgainst(snapshotImages(s), checks, Ledger())
}

// snapshotImages returns the images of the upstream projects the snapshot (and every cluster of
// a multi-cluster snapshot) shows running.
func snapshotImages(s *snapshot.Snapshot) []string {
	if s == nil {
		return nil
	}
	var out []string
	if a := s.AWSNode; a != nil {
		out = append(out, a.Image)
		if a.NodeAgent != nil {
			out = append(out, a.NodeAgent.Image)
		}
	}
	if s.Cilium != nil {
		out = append(out, s.Cilium.Image)
	}
	for i := range s.Clusters {
		out = append(out, snapshotImages(&s.Clusters[i])...)
	}
	return out
}

// staleAgainst compares images with pins: for each pin with an image, the newest tag among the
// images of that repository name, if newer than the pin, with the checks verified against it.
func staleAgainst(images []string, checks []Check, pins []Pin) []Stale {
	var out []Stale
	for _, p := range pins {
		if p.Image == "" {
			continue
		}
		pinned, ok := snapshot.ParseVersion(p.Version)
		if !ok {
			continue
		}
		var newest [3]int
		running := ""
		for _, img := range images {
			name, tag, ok := snapshot.ImageTag(img)
			if !ok || name != p.Image {
				continue
			}
			v, ok := snapshot.ParseVersion(tag)
			if !ok || !semverLess(pinned, v) || running != "" && !semverLess(newest, v) {
				continue
			}
			newest, running = v, tag
		}
		if running == "" {
			continue
		}
		var ids []string
		for _, c := range checks {
			for _, v := range c.Verified {
				if v.Project == p.Project {
					ids = append(ids, c.ID)
					break
				}
			}
		}
		if len(ids) > 0 {
			out = append(out, Stale{Project: p.Project, Pinned: p.Version, Running: running, Checks: ids})
		}
	}
	return out
}

// semverLess reports whether a is an older major.minor.patch than b.
func semverLess(a, b [3]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}
