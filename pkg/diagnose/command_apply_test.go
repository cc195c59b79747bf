package diagnose

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose/wayout"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// applyAWS applies the AWS CLI commands of a remedy to s as EC2 would, for the commands that
// change what the way-out checks read: network ACL entries, default routes and a subnet's
// public addressing. Any other command fails the test, so a new kind is added here when a
// check starts proposing it.
func applyAWS(t *testing.T, s *snapshot.Snapshot, cmds []Command) {
	t.Helper()
	for _, c := range cmds {
		if len(c.Argv) < 3 || c.Argv[0] != "aws" || c.Argv[1] != "ec2" {
			t.Fatalf("applyAWS: %s is no EC2 command", c)
		}
		opt := map[string]string{}
		flags := map[string]bool{}
		for i := 3; i < len(c.Argv); i++ {
			a := c.Argv[i]
			if !strings.HasPrefix(a, "--") {
				t.Fatalf("applyAWS: %s: stray argument %q", c, a)
			}
			if i+1 < len(c.Argv) && !strings.HasPrefix(c.Argv[i+1], "--") {
				opt[a] = c.Argv[i+1]
				i++
			} else {
				flags[a] = true
			}
		}
		switch c.Argv[2] {
		case "create-network-acl-entry":
			var acl *snapshot.NetworkACL
			for i := range s.NetworkACLs {
				if s.NetworkACLs[i].ID == opt["--network-acl-id"] {
					acl = &s.NetworkACLs[i]
				}
			}
			if acl == nil {
				t.Fatalf("applyAWS: %s: no such network ACL", c)
			}
			rule, err := strconv.Atoi(opt["--rule-number"])
			egress := flags["--egress"]
			for _, e := range acl.Entries {
				if e.Egress == egress && int(e.RuleNumber) == rule {
					t.Fatalf("applyAWS: %s: rule %d exists (NetworkAclEntryAlreadyExists)", c, rule)
				}
			}
			var from, to int
			if _, perr := fmtSscanf(opt["--port-range"], "From=%d,To=%d", &from, &to); err != nil || perr != nil ||
				rule < 1 || rule > wayout.ACLMaxRule || egress == flags["--ingress"] {
				t.Fatalf("applyAWS: %s: malformed entry", c)
			}
			acl.Entries = append(acl.Entries, snapshot.ACLEntry{RuleNumber: int32(rule), Egress: egress,
				Protocol: opt["--protocol"], Action: opt["--rule-action"], CIDR: opt["--cidr-block"],
				FromPort: int32(from), ToPort: int32(to)})
		case "create-route", "replace-route":
			var target string
			for _, f := range []string{"--nat-gateway-id", "--gateway-id", "--transit-gateway-id"} {
				if opt[f] != "" {
					target = opt[f]
				}
			}
			found := false
			for i := range s.RouteTables {
				rt := &s.RouteTables[i]
				if rt.ID != opt["--route-table-id"] {
					continue
				}
				found = true
				replaced := false
				for j := range rt.Routes {
					if rt.Routes[j].Destination == opt["--destination-cidr-block"] {
						if c.Argv[2] == "create-route" {
							t.Fatalf("applyAWS: %s: the route exists (RouteAlreadyExists)", c)
						}
						rt.Routes[j] = snapshot.Route{Destination: opt["--destination-cidr-block"], Target: target, State: snapshot.RouteActive}
						replaced = true
					}
				}
				if !replaced {
					if c.Argv[2] == "replace-route" {
						t.Fatalf("applyAWS: %s: no route to replace", c)
					}
					rt.Routes = append(rt.Routes, snapshot.Route{Destination: opt["--destination-cidr-block"], Target: target, State: snapshot.RouteActive})
				}
			}
			if !found || target == "" {
				t.Fatalf("applyAWS: %s: no such route table or no target", c)
			}
		default:
			t.Fatalf("applyAWS: %s: not modelled", c)
		}
	}
}

// TestNetworkACLCommandsClearTheFinding applies the commands of network-acl-blocks-node-traffic
// to the ACL they are about: the check then stays silent.
func TestNetworkACLCommandsClearTheFinding(t *testing.T) {
	deny := []snapshot.ACLEntry{
		{RuleNumber: 100, Protocol: "-1", Action: snapshot.ACLAllow, CIDR: "10.0.0.0/16"},
		{RuleNumber: 100, Egress: true, Protocol: "-1", Action: snapshot.ACLAllow, CIDR: "10.0.0.0/16"},
		{RuleNumber: 50, Protocol: "6", Action: snapshot.ACLDeny, CIDR: "0.0.0.0/0", FromPort: 40000, ToPort: 40100},
		{RuleNumber: 49, Protocol: "-1", Action: snapshot.ACLAllow, CIDR: "192.168.0.0/16"},
		{RuleNumber: 32767, Egress: true, Protocol: "-1", Action: snapshot.ACLDeny, CIDR: "0.0.0.0/0"},
		{RuleNumber: 32767, Protocol: "-1", Action: snapshot.ACLDeny, CIDR: "0.0.0.0/0"},
	}
	for _, windows := range []bool{false, true} {
		s := healthy()
		withNATPath(s)
		s.NetworkACLs = append(s.NetworkACLs, snapshot.NetworkACL{ID: "acl-0own", VpcID: vpcA,
			SubnetIDs: []string{subnetA}, Entries: deny})
		if windows {
			s.Nodes[0].Labels["kubernetes.io/os"] = OSWindows
		}
		got := networkACLBlocksNodeTraffic.Findings(NewIndex(s))
		// A Windows node and its Linux EC2NodeClass are told apart; the entries of either
		// finding admit both, 1024-65535 holding every client's ephemeral ports.
		if len(got) == 0 || len(got[0].Commands) != 2 {
			t.Fatalf("windows=%v: want a finding with two commands, got %+v", windows, got)
		}
		if rule := got[len(got)-1].Commands[1].Argv[7]; rule != "48" {
			t.Errorf("windows=%v: the Linux inbound entry takes rule %s, want 48 (below deny 50, 49 taken)", windows, rule)
		}
		applyAWS(t, s, got[0].Commands)
		if again := networkACLBlocksNodeTraffic.Findings(NewIndex(s)); len(again) != 0 {
			t.Errorf("windows=%v: after the commands the check still fires: %+v", windows, again)
		}
	}
}

// fmtSscanf is fmt.Sscanf, kept apart so the applier reads as EC2's argument checks.
var fmtSscanf = fmt.Sscanf

// TestEgressRouteCommandClearsTheFinding applies the route command of subnet-no-egress-route
// for a subnet whose NAT gateway was deleted while another is available: the check then stays
// silent. Pasting every command of a finding is not the point (its ways are alternatives):
// each way's commands alone must clear it.
func TestEgressRouteCommandClearsTheFinding(t *testing.T) {
	s := healthy()
	withNATPath(s)
	s.NATGateways[0].State = "deleted"
	s.NATGateways = append(s.NATGateways, snapshot.NATGateway{ID: "nat-0bbb", VpcID: vpcA, SubnetID: subnetPublic,
		State: "available", ConnectivityType: "public"})
	got := subnetNoEgressRoute.Findings(NewIndex(s))
	if len(got) != 1 {
		t.Fatalf("want one finding, got %+v", got)
	}
	var route []Command
	for _, c := range got[0].Commands {
		if c.Argv[2] == "replace-route" {
			route = append(route, c)
		}
	}
	if len(route) != 1 {
		t.Fatalf("want one replace-route command, got %v", got[0].Commands)
	}
	applyAWS(t, s, route)
	if again := subnetNoEgressRoute.Findings(NewIndex(s)); len(again) != 0 {
		t.Errorf("after %s the check still fires: %+v", route[0], again)
	}
}

// TestEndpointCommandsNameAGroupThatAdmitsTheNodes gives the interface endpoints of a private
// cluster the security group karpnet read that admits TCP 443 from the node subnet, and none
// when the only group admits another subnet.
func TestEndpointCommandsNameAGroupThatAdmitsTheNodes(t *testing.T) {
	for _, tc := range []struct {
		name, cidr, want string
	}{
		{"the VPC's CIDR holds the node subnet", "10.0.0.0/16", "sg-0endpoints"},
		{"another subnet's CIDR does not", "10.0.9.0/24", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := healthy()
			withoutDefaultRoute(s)
			withEndpoints(s)
			s.VPCEndpoints = s.VPCEndpoints[1:4]
			s.SecurityGroups = append(s.SecurityGroups, snapshot.SecurityGroup{ID: "sg-0endpoints", VpcID: vpcA,
				Inbound: []snapshot.Rule{{Protocol: "6", FromPort: 443, ToPort: 443, CIDRs: []string{tc.cidr}}}})
			got := subnetNoEgressRoute.Findings(NewIndex(s))
			if len(got) != 1 {
				t.Fatalf("want one finding, got %+v", got)
			}
			interfaces := 0
			for _, c := range got[0].Commands {
				if !slices.Contains(c.Argv, "Interface") {
					continue
				}
				interfaces++
				i := slices.Index(c.Argv, "--security-group-ids")
				switch {
				case tc.want == "" && i >= 0:
					t.Errorf("%s names a group, want none", c)
				case tc.want != "" && (i < 0 || c.Argv[i+1] != tc.want):
					t.Errorf("%s: want --security-group-ids %s", c, tc.want)
				}
			}
			if interfaces == 0 {
				t.Fatalf("no interface endpoint command in %v", got[0].Commands)
			}
			if tc.want != "" && !strings.Contains(got[0].Remedy, "security group "+tc.want+", which admits TCP 443") {
				t.Errorf("the remedy does not say which group the endpoints get: %s", got[0].Remedy)
			}
		})
	}
}

// withCommands gives the one finding of want the commands cmds after its own.
func withCommands(want []Finding, cmds ...Command) []Finding {
	want[0].Commands = append(want[0].Commands, cmds...)
	return want
}

// maxPodsPatch is the command that sets spec.kubelet.maxPods of the fixture's EC2NodeClass
// default to v; nodes says which of its nodes it reaches.
func maxPodsPatch(v int, nodes string) Command {
	return Command{Argv: []string{"kubectl", "patch", "ec2nodeclass", "default", "--type", "merge", "-p",
		`{"spec":{"kubelet":{"maxPods":` + strconv.Itoa(v) + `}}}`}, Changes: "ec2nodeclass/default",
		Affects: "every node of EC2NodeClass default drifts (kubelet is part of its hash) and Karpenter replaces it with " +
			"max pods " + strconv.Itoa(v) + " whatever its type: " + nodes}
}

// inlineCommand finds a command written into a remedy's prose, which belongs in its commands.
var inlineCommand = regexp.MustCompile(`(^|[ (:])(kubectl|aws) [a-z-]+ [a-z-]`)

// sharedKinds are the objects a command changes that other nodes share: a change to one must
// say whom it reaches.
var sharedKinds = []string{"nodepool/", "ec2nodeclass/", "nodeclass/", "securitygroup/", "route-table/", "network-acl/",
	"subnet/", "vpc/", "vpc-endpoint/", "configmap/", "daemonset/", "the vpc-cni add-on"}

// assertCommandScope fails when a command of c's findings changes a shared object without
// saying whom it reaches, or c's catalogue entry does not say what its commands change.
func assertCommandScope(t *testing.T, c Check, got []Finding) {
	t.Helper()
	for _, f := range got {
		if m := inlineCommand.FindString(f.Remedy); m != "" || strings.Contains(f.Remedy, "`") {
			t.Errorf("%s: the remedy's prose holds a command (%q) instead of its commands list: %s", c.ID, m, f.Remedy)
		}
		for _, cmd := range f.Commands {
			if cmd.ReadOnly {
				continue
			}
			if cmd.Changes == "" {
				t.Errorf("%s: %s changes something but does not say what", c.ID, cmd)
				continue
			}
			if !slices.ContainsFunc(sharedKinds, func(k string) bool { return strings.HasPrefix(cmd.Changes, k) }) {
				continue
			}
			if cmd.Affects == "" {
				t.Errorf("%s: %s changes %s, which other nodes share, without saying whom it reaches", c.ID, cmd, cmd.Changes)
			}
			if c.Scope == "" {
				t.Errorf("%s: its commands change %s, but its Spec has no Scope for explain", c.ID, cmd.Changes)
			}
		}
	}
}
