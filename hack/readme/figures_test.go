package main

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/collect"
)

func TestRenderFigures(t *testing.T) {
	n := reflect.TypeFor[collect.EC2API]().NumMethod()
	tests := []struct {
		name, in, want, wantErr string
	}{
		{name: "a stale count is rewritten from collect.EC2API",
			in:   "it calls <!-- figure:ec2-actions -->nine<!-- /figure --> EC2 actions",
			want: "it calls <!-- figure:ec2-actions -->" + strconv.Itoa(n) + "<!-- /figure --> EC2 actions"},
		{name: "two figures on a line",
			in:   "<!-- figure:ec2-get-actions -->0<!-- /figure --> Get: <!-- figure:ec2-get-action-list --><!-- /figure -->.",
			want: "<!-- figure:ec2-get-actions -->1<!-- /figure --> Get: <!-- figure:ec2-get-action-list -->`ec2:GetSubnetCidrReservations`<!-- /figure -->."},
		{name: "text without figures", in: "eleven actions", want: "eleven actions"},
		{name: "an unknown figure", in: "<!-- figure:nodes -->3<!-- /figure -->", wantErr: `unknown figure "nodes"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := renderFigures([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %q, error %v; want an error containing %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestKindsWithoutSheet(t *testing.T) {
	got := withoutSheet()
	for _, want := range []string{"instances", "DaemonSets"} {
		if !strings.Contains(got, want) {
			t.Errorf("kinds without a sheet: %q, want %s among them", got, want)
		}
	}
	for _, has := range []string{"subnets", "NodePools", "ENIs", "nodes"} {
		if strings.Contains(got, has) {
			t.Errorf("kinds without a sheet: %q names %s, which has one", got, has)
		}
	}
}

func TestRenderSampleSummary(t *testing.T) {
	stale := strings.Join([]string{sampleSummary, "```json", "{", `  "kind": "Report",`,
		`  "summary": {"listed": 1,`, `              "findings": {"critical": 7}},`, `  "nodes": []`, "}", "```", ""}, "\n")
	got, err := renderSampleSummary([]byte(stale))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(got), "\n")
	if lines[4] == `  "summary": {"listed": 1,` || !strings.HasPrefix(lines[4], `  "summary": {"listed": 36`) {
		t.Errorf("the summary is not the demo's: %q", lines[4])
	}
	for _, l := range lines {
		if len(l) > 118 {
			t.Errorf("line of %d bytes: %q", len(l), l)
		}
	}
	if !strings.Contains(string(got), "\n  \"nodes\": []\n}\n```\n") || !strings.HasPrefix(string(got), sampleSummary+"\n```json\n{\n  \"kind\"") {
		t.Errorf("the lines around the summary changed:\n%s", got)
	}
	if _, err := renderSampleSummary([]byte(sampleSummary + "\ntext\n")); err == nil {
		t.Error("a marker without a json block after it: no error")
	}
	if _, err := renderSampleSummary([]byte(sampleSummary + "\n```json\n{\n  \"kind\": \"Report\"\n}\n```\n")); err == nil {
		t.Error("a sample without a summary: no error")
	}
}
