package diagnose

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseProviderID(t *testing.T) {
	tests := []struct {
		id      string
		want    ProviderID
		wantErr bool
	}{
		{id: "aws:///us-west-2a/i-0123456789abcdef0", want: ProviderID{Zone: "us-west-2a", InstanceID: "i-0123456789abcdef0"}},
		{id: "aws:///us-east-1-bos-1a/i-12345678", want: ProviderID{Zone: "us-east-1-bos-1a", InstanceID: "i-12345678"}},
		{id: "", wantErr: true},
		{id: "aws://us-west-2a/i-0123456789abcdef0", wantErr: true},
		{id: "aws:////i-0123456789abcdef0", wantErr: true},
		{id: "aws:///us-west-2a/", wantErr: true},
		{id: "aws:///us-west-2a/i-0123456789ABCDEF0", wantErr: true},
		{id: "aws:///us-west-2a/i-0123456789abcdef0/extra", wantErr: true},
		{id: "kind://docker/kind/kind-worker", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			got, err := ParseProviderID(tc.id)
			if (err != nil) != tc.wantErr {
				t.Fatalf("ParseProviderID(%q) error = %v, want error %v", tc.id, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseProviderID(%q) mismatch (-want +got):\n%s", tc.id, diff)
			}
		})
	}
}

// FuzzParseProviderID checks that parsing never panics and that every accepted providerID is
// exactly aws:///ZONE/INSTANCE-ID of its parts.
func FuzzParseProviderID(f *testing.F) {
	for _, seed := range []string{
		"aws:///us-west-2a/i-0123456789abcdef0", "aws:///us-west-2a/i-12345678", "aws:///a/b/c", "aws:///",
		"", "aws://", "kind://docker/kind/kind-worker", "aws:///us-west-2a/i-0123456789abcdef0\x00",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, id string) {
		p, err := ParseProviderID(id)
		if err != nil {
			if p != (ProviderID{}) {
				t.Errorf("ParseProviderID(%q) = %+v with error %v, want a zero ProviderID", id, p, err)
			}
			return
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
