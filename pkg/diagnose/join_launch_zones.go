package diagnose

import (
	"regexp"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

var specLaunchFailuresByZone = &Spec{
	ID:       "launch-failures-by-zone",
	Severity: Warning,
	Lower:    []Severity{Info},
	Family:   FamilyJoin,
	Needs:    []string{snapshot.SourceEvents},
	Examines: []string{SubjectZone},
	Title:    "launches keep failing in one zone: a full subnet, no capacity, or an ARC zonal shift",
	FiresWhen: "at least 3 NodeClaims failed to launch in one zone in the last hour: Karpenter's " +
		"`InsufficientCapacityError` events on NodeClaims (the claims themselves are deleted at once) and the " +
		"NodeClaims still failing (`nodeclaim-launch-failed`), placed in a zone by the EC2 Fleet errors they quote " +
		"(`InsufficientFreeAddressesInSubnet` through its subnet, `InsufficientInstanceCapacity` and `Unsupported` " +
		"through the zone EC2 names) or the claim's zone label; one finding per zone says how many, how many of them a " +
		"full subnet took and which types lacked capacity; info when a NodePool's newest zonal shift event is " +
		"`ZonalShiftActive` with fewer failures",
	NotOn: "fewer than 3 failed NodeClaims in a zone in the hour (one transient failure); failures older than an hour; " +
		"account-wide limits that name no zone (`VcpuLimitExceeded`, `MaxSpotInstanceCountExceeded`, " +
		"`MaxFleetCountExceeded`); a zonal shift whose newest event is `ZonalShiftCleared`",
	Why: "Karpenter hides a failing zone: it deletes a NodeClaim that hit a capacity error at once, marks the offering " +
		"(or, since v1.13, the full subnet) unavailable for 3 minutes and tries again, so pods wait and nodes pile into " +
		"the other zones while each failure leaves only one event; the count per zone shows the pattern the single " +
		"events hide",
	Remedy: "a full subnet: more subnets (or free addresses) in that zone for the class; no capacity: admit more " +
		"instance types or zones in the NodePools; a zonal shift: nothing while it lasts, as long as the NodePools admit " +
		"other zones",
	Sources: []string{
		"kubernetes-sigs/karpenter pkg/controllers/nodeclaim/lifecycle/launch.go (InsufficientCapacityError: event, then delete)",
		"kubernetes-sigs/karpenter pkg/controllers/nodeclaim/lifecycle/events.go (InsufficientCapacityErrorEvent)",
		"kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/nodeclaimtemplate.go (GenerateName NODEPOOL-)",
		"aws/karpenter-provider-aws pkg/providers/instance/instance.go (combineFleetErrors, updateUnavailableOfferingsCache)",
		"aws/karpenter-provider-aws pkg/errors/errors.go (unfulfillableCapacityErrorCodes)",
		"aws/karpenter-provider-aws pkg/cache/unavailableofferings.go (MarkSubnetUnavailable), pkg/cache/cache.go (UnavailableOfferingsTTL)",
		"aws/karpenter-provider-aws pkg/controllers/arczonalshift/controller.go, pkg/cloudprovider/events/events.go (ZonalShiftActive)",
		"aws/karpenter-provider-aws#9054 (v1.13: a full subnet is unavailable, not its zone)",
	},
	Verified: []Verified{
		{UpstreamKarpenterCore, "pkg/controllers/nodeclaim/lifecycle/launch.go (launchNodeClaim)",
			"an InsufficientCapacityError publishes the InsufficientCapacityError event and deletes the NodeClaim at once"},
		{UpstreamKarpenterCore, "pkg/controllers/nodeclaim/lifecycle/events.go (InsufficientCapacityErrorEvent)",
			"the event is a Warning on the NodeClaim, reason InsufficientCapacityError, message \"NodeClaim NAME event: \" and the error truncated to 300 bytes, deduplicated per NodeClaim UID"},
		{UpstreamKarpenterCore, "pkg/controllers/provisioning/scheduling/nodeclaimtemplate.go (ToNodeClaim)",
			"a NodeClaim's name is generated from its NodePool's name and a dash (GenerateName NODEPOOL-)"},
		{UpstreamKarpenterCore, "pkg/cloudprovider/types.go (InsufficientCapacityError.Error)",
			"the error reads \"insufficient capacity, \" before the provider's error"},
		{UpstreamKarpenter, "pkg/providers/instance/instance.go (combineFleetErrors)",
			"each distinct fleet error is written \"CODE: MESSAGE\"; when all are unfulfillable capacity the whole is an InsufficientCapacityError \"with fleet error(s), ...\""},
		{UpstreamKarpenter, "pkg/errors/errors.go (unfulfillableCapacityErrorCodes)",
			"InsufficientInstanceCapacity, InsufficientFreeAddressesInSubnet, Unsupported, MaxSpotInstanceCountExceeded, VcpuLimitExceeded, UnfulfillableCapacity, MaxFleetCountExceeded and ReservationCapacityExceeded are capacity errors"},
		{UpstreamKarpenter, "pkg/providers/instance/instance.go (updateUnavailableOfferingsCache)",
			"InsufficientFreeAddressesInSubnet marks the fleet override's subnet unavailable; other capacity errors mark the type, zone and capacity type unavailable"},
		{UpstreamKarpenter, "pkg/cache/cache.go (UnavailableOfferingsTTL)", "unavailable offerings and subnets stay so for 3 minutes"},
		{UpstreamKarpenter, "pkg/cloudprovider/events/events.go (NodePoolZonalShiftDetected, NodePoolZonalShiftCleared)",
			"a NodePool gets a Warning ZonalShiftActive \"Zonal shift detected: offerings in zone NAME (ID) are unavailable for this NodePool\", and a Normal ZonalShiftCleared \"... are restored ...\" when the shift ends"},
		{UpstreamKarpenter, "pkg/controllers/arczonalshift/controller.go (PublishZonalShiftEvents), pkg/providers/arczonalshift/arczonalshift.go (ShiftedZones)",
			"the events go to every NodePool that can launch into the zone, when an applied, unexpired shift starts or ends"},
	},
}

// Launch failures are counted over launchWindow (Kubernetes keeps events an hour by default,
// kube-apiserver --event-ttl) and a zone is reported from launchFailuresMin failed NodeClaims:
// one capacity error is the ordinary case Karpenter retries around.
const (
	launchWindow      = time.Hour
	launchFailuresMin = 3
)

// Karpenter's event and reasons this check reads.
const (
	reasonICEEvent          = "InsufficientCapacityError"
	reasonZonalShiftActive  = "ZonalShiftActive"
	reasonZonalShiftCleared = "ZonalShiftCleared"
	codeSubnetFull          = "InsufficientFreeAddressesInSubnet"
	codeNoCapacity          = "InsufficientInstanceCapacity"
)

var (
	// fleetCodePattern finds the zonal capacity codes of the fleet errors an event or condition
	// quotes, "CODE: MESSAGE" each (combineFleetErrors).
	fleetCodePattern = regexp.MustCompile(`\b(InsufficientInstanceCapacity|InsufficientFreeAddressesInSubnet|Unsupported|UnfulfillableCapacity|ReservationCapacityExceeded): `)
	// zoneInParens is the zone EC2 names in a capacity error: "... Availability Zone you
	// requested (us-west-2b)"; the first one is the zone asked for.
	zoneInParens = regexp.MustCompile(`\(([a-z]{2}(?:-[a-z]+)+-[0-9]+[a-z])\)`)
	// typeInICE is the type EC2 names: "do not have sufficient m5.large capacity".
	typeInICE = regexp.MustCompile(`sufficient ([a-z0-9-]+\.[a-z0-9-]+) capacity`)
	// zonalShiftZone is the zone of Karpenter's zonal shift events: "zone us-west-2b (usw2-az2)".
	zonalShiftZone = regexp.MustCompile(`zone (\S+) \((\S+)\)`)
)

// zoneLaunches is what failed in one zone.
type zoneLaunches struct {
	zone     string
	claims   int
	last     time.Time
	subnets  map[string]int
	codes    map[string]int
	types    map[string]bool
	pools    map[string]bool
	shiftIDs map[string]bool
	shifted  []string
}

// launchFailuresByZone counts the NodeClaims that failed to launch in each zone over the last
// hour. Karpenter deletes a NodeClaim whose launch hit only capacity errors at once and keeps
// its InsufficientCapacityError event, so one failing zone shows as scattered events on
// NodeClaims that no longer exist; counted per zone, with the subnets and types they name, the
// pattern shows: a full subnet, a type EC2 lacks there, or an ARC zonal shift that Karpenter
// announces on the NodePools.
var launchFailuresByZone = Check{
	Spec: specLaunchFailuresByZone,
	Run: func(x *Index) []Finding {
		zones := map[string]*zoneLaunches{}
		get := func(z string) *zoneLaunches {
			if zones[z] == nil {
				zones[z] = &zoneLaunches{zone: z, subnets: map[string]int{}, codes: map[string]int{},
					types: map[string]bool{}, pools: map[string]bool{}, shiftIDs: map[string]bool{}}
			}
			return zones[z]
		}
		x.countLaunchFailures(get)
		x.activeZonalShifts(get)
		var out []Finding
		for _, z := range sortedKeys(zones) {
			if f, ok := zones[z].finding(x); ok {
				out = append(out, f)
			}
		}
		return out
	},
}

// launchFailure is one NodeClaim's failed launch: when, and what it names. A NodeClaim counts
// once, however often Karpenter retried it or its event repeated.
type launchFailure struct {
	claim, pool string
	last        time.Time
	text        string
	zoneLabel   string
}

// countLaunchFailures adds every NodeClaim that failed to launch within the window to the
// zones its errors name: the InsufficientCapacityError events (their NodeClaims are gone) and
// the claims still failing.
func (x *Index) countLaunchFailures(get func(string) *zoneLaunches) {
	since := x.Snapshot.Taken.Add(-launchWindow)
	byClaim := map[string]*launchFailure{}
	for _, e := range x.Snapshot.Events {
		if e.Kind != "NodeClaim" || e.Reason != reasonICEEvent || e.Last.Before(since) {
			continue
		}
		f := byClaim[e.Name]
		if f == nil {
			f = &launchFailure{claim: e.Name}
			byClaim[e.Name] = f
		}
		f.text += " " + e.Message
		if e.Last.After(f.last) {
			f.last = e.Last
		}
	}
	for _, c := range x.Claims {
		l := c.Condition(condLaunched)
		if c.Status != ClaimLaunchFailed || l == nil || l.LastTransitionTime.Before(since) {
			continue
		}
		f := byClaim[c.Name()]
		if f == nil {
			f = &launchFailure{claim: c.Name()}
			byClaim[c.Name()] = f
		}
		f.pool, f.zoneLabel = c.PoolName, c.Claim.Labels[corev1.LabelTopologyZone]
		f.text += " " + l.Reason + ": " + l.Message
		f.last = maxTime(f.last, l.LastTransitionTime)
	}
	for _, name := range sortedKeys(byClaim) {
		f := byClaim[name]
		if f.pool == "" {
			f.pool = x.poolOfClaimName(name)
		}
		for zone, seg := range x.failureZones(f) {
			z := get(zone)
			z.claims++
			z.last = maxTime(z.last, f.last)
			if f.pool != "" {
				z.pools[f.pool] = true
			}
			for _, s := range seg.subnets {
				z.subnets[s]++
			}
			for _, code := range seg.codes {
				z.codes[code]++
			}
			for _, t := range seg.types {
				z.types[t] = true
			}
		}
	}
}

// zoneCauses is what one failure says about one zone.
type zoneCauses struct {
	codes, subnets, types []string
}

// failureZones splits a failure's text into the fleet errors it quotes and places each in its
// zone: a full subnet's zone, or the zone EC2 names. A failure that names no zone counts in
// its NodeClaim's zone label when it has one.
func (x *Index) failureZones(f *launchFailure) map[string]*zoneCauses {
	out := map[string]*zoneCauses{}
	add := func(zone, code, subnet, typ string) {
		if zone == "" {
			return
		}
		c := out[zone]
		if c == nil {
			c = &zoneCauses{}
			out[zone] = c
		}
		if !slices.Contains(c.codes, code) {
			c.codes = append(c.codes, code)
		}
		if subnet != "" && !slices.Contains(c.subnets, subnet) {
			c.subnets = append(c.subnets, subnet)
		}
		if typ != "" && !slices.Contains(c.types, typ) {
			c.types = append(c.types, typ)
		}
	}
	locs := fleetCodePattern.FindAllStringSubmatchIndex(f.text, -1)
	for i, loc := range locs {
		end := len(f.text)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		code, seg := f.text[loc[2]:loc[3]], f.text[loc[1]:end]
		if code == codeSubnetFull {
			for _, id := range sortedUnique(subnetIDPattern.FindAllString(seg, -1)) {
				if s := x.Subnets[id]; s != nil {
					add(s.Zone, code, id, "")
				}
			}
			continue
		}
		if m := zoneInParens.FindStringSubmatch(seg); m != nil {
			typ := ""
			if t := typeInICE.FindStringSubmatch(seg); t != nil {
				typ = t[1]
			}
			add(m[1], code, "", typ)
		}
	}
	if len(out) == 0 && f.zoneLabel != "" {
		code := "LaunchFailed"
		if loc := fleetCodePattern.FindStringSubmatch(f.text); loc != nil {
			code = loc[1]
		} else if strings.Contains(f.text, codeSubnetFull) {
			code = codeSubnetFull
		}
		add(f.zoneLabel, code, "", "")
	}
	return out
}

// poolOfClaimName is the NodePool a NodeClaim's name was generated from (NODEPOOL-xxxxx): the
// longest known NodePool name it begins with, followed by a dash and a suffix without one; ""
// when none fits.
func (x *Index) poolOfClaimName(name string) string {
	best := ""
	for _, p := range x.Snapshot.NodePools {
		rest, ok := strings.CutPrefix(name, p.Name+"-")
		if ok && rest != "" && !strings.Contains(rest, "-") && len(p.Name) > len(best) {
			best = p.Name
		}
	}
	return best
}

// activeZonalShifts adds the zones some NodePool's newest zonal shift event says are shifted
// away from.
func (x *Index) activeZonalShifts(get func(string) *zoneLaunches) {
	type key struct{ pool, zone string }
	newest := map[key]snapshot.KubeEvent{}
	for _, e := range x.Snapshot.Events {
		if e.Kind != "NodePool" || e.Reason != reasonZonalShiftActive && e.Reason != reasonZonalShiftCleared {
			continue
		}
		m := zonalShiftZone.FindStringSubmatch(e.Message)
		if m == nil {
			continue
		}
		k := key{e.Name, m[1]}
		if old, ok := newest[k]; !ok || e.Last.After(old.Last) {
			newest[k] = e
		}
	}
	keys := make([]key, 0, len(newest))
	for k := range newest {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int { return strings.Compare(a.zone+"/"+a.pool, b.zone+"/"+b.pool) })
	for _, k := range keys {
		e := newest[k]
		if e.Reason != reasonZonalShiftActive {
			continue
		}
		z := get(k.zone)
		z.shifted = append(z.shifted, k.pool)
		z.shiftIDs[zonalShiftZone.FindStringSubmatch(e.Message)[2]] = true
	}
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
