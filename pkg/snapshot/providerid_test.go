package snapshot

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseProviderID(t *testing.T) {
	tests := []struct {
		id      string
		want    ProviderID
		wantErr string
		// lenient is whether ParseProviderIDLeniently reads the instance ID the strict parse
		// refuses.
		lenient bool
	}{
		{id: "aws:///us-west-2a/i-0123456789abcdef0", want: ProviderID{Zone: "us-west-2a", InstanceID: "i-0123456789abcdef0"}},
		{id: "aws:///us-east-1-bos-1a/i-12345678", want: ProviderID{Zone: "us-east-1-bos-1a", InstanceID: "i-12345678"}},
		{id: "", wantErr: "providerID is empty"},
		{id: "aws://us-west-2a/i-0123456789abcdef0", wantErr: `providerID "aws://us-west-2a/i-0123456789abcdef0" does not start with aws:///`},
		{id: "aws:////i-0123456789abcdef0", wantErr: `providerID "aws:////i-0123456789abcdef0" has no zone`},
		{id: "aws:///us-west-2a", wantErr: `providerID "aws:///us-west-2a" is not aws:///ZONE/INSTANCE-ID`},
		{id: "aws:///us-west-2a/", wantErr: `providerID "aws:///us-west-2a/" has no valid instance ID (i- and 8 or 17 hex digits)`},
		{id: "aws:///us-west-2a/i-0123456789ABCDEF0", wantErr: "has no valid instance ID", lenient: true},
		{id: "aws:///us-west-2a/i-0123", wantErr: "has no valid instance ID", lenient: true},
		{id: "aws:///us-west-2a/i-", wantErr: "has no valid instance ID", lenient: true},
		{id: "aws:///us-west-2a/not-an-instance", wantErr: "has no valid instance ID"},
		{id: "aws:///us-west-2a/i-0123456789abcdef0/extra", wantErr: "is not aws:///ZONE/INSTANCE-ID"},
		{id: "kind://docker/kind/kind-worker", wantErr: "does not start with aws:///"},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			got, err := ParseProviderID(tc.id)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("ParseProviderID(%q) error = %v, want one containing %q", tc.id, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseProviderID(%q) mismatch (-want +got):\n%s", tc.id, diff)
			}
			loose, ok := ParseProviderIDLeniently(tc.id)
			if ok != (err == nil || tc.lenient) {
				t.Fatalf("ParseProviderIDLeniently(%q) ok = %v, want %v", tc.id, ok, err == nil || tc.lenient)
			}
			if err == nil && loose != got {
				t.Errorf("ParseProviderIDLeniently(%q) = %+v, the strict parse %+v", tc.id, loose, got)
			}
		})
	}
}

// FuzzParseProviderID checks that parsing never panics, that every accepted providerID is
// exactly aws:///ZONE/INSTANCE-ID of its parts, and that the lenient parse accepts all the
// strict one does, with the same parts, and beyond it only instance IDs the strict one
// refuses.
func FuzzParseProviderID(f *testing.F) {
	for _, seed := range []string{
		"aws:///us-west-2a/i-0123456789abcdef0", "aws:///us-west-2a/i-12345678", "aws:///a/b/c", "aws:///",
		"", "aws://", "kind://docker/kind/kind-worker", "aws:///us-west-2a/i-0123456789abcdef0\x00", "aws:///z/i-X",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, id string) {
		p, err := ParseProviderID(id)
		loose, ok := ParseProviderIDLeniently(id)
		if ok {
			if got := "aws:///" + loose.Zone + "/" + loose.InstanceID; got != id || !strings.HasPrefix(loose.InstanceID, "i-") {
				t.Errorf("ParseProviderIDLeniently(%q) = %+v, which prints as %q", id, loose, got)
			}
		}
		if err != nil {
			if p != (ProviderID{}) {
				t.Errorf("ParseProviderID(%q) = %+v with error %v, want a zero ProviderID", id, p, err)
			}
			if ok && !strings.Contains(err.Error(), "has no valid instance ID") {
				t.Errorf("ParseProviderIDLeniently(%q) accepts what ParseProviderID refuses for another reason: %v", id, err)
			}
			return
		}
		if !ok || loose != p {
			t.Errorf("ParseProviderIDLeniently(%q) = %+v, %v; the strict parse %+v", id, loose, ok, p)
		}
		if got := "aws:///" + p.Zone + "/" + p.InstanceID; got != id {
			t.Errorf("ParseProviderID(%q) = %+v, which prints as %q", id, p, got)
		}
		again, err := ParseProviderID("aws:///" + p.Zone + "/" + p.InstanceID)
		if err != nil || again != p {
			t.Errorf("round trip of %q = %+v, %v; want %+v", id, again, err, p)
		}
	})
}

func TestIsEC2ProviderID(t *testing.T) {
	for id, want := range map[string]bool{"aws:///us-west-2a/i-0123456789abcdef0": true, "aws://broken": true, "": false,
		"kind://docker/kind/kind-worker": false, "eks-hybrid:///eu-west-1/prod/mi-0123456789abcdef0": false} {
		if got := IsEC2ProviderID(id); got != want {
			t.Errorf("IsEC2ProviderID(%q) = %v, want %v", id, got, want)
		}
	}
}
