package enimaxpods

import "testing"

func TestTable(t *testing.T) {
	pods, err := Table()
	if err != nil {
		t.Fatal(err)
	}
	for typ, want := range map[string]int64{"m5.large": 29, "c5.xlarge": 58, "p5.48xlarge": 100} {
		if got := pods[typ]; got != want {
			t.Errorf("Table()[%q] = %d, want %d", typ, got, want)
		}
	}
	if len(pods) < 1000 {
		t.Errorf("got %d instance types, want the whole table (over 1,000)", len(pods))
	}
}
