package ec2sim

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// selection says how one action picks items: by an ID filter, an ID list parameter, and other
// filters answered by field.
type selection[T any] struct {
	// cache names the sorted-keys cache of the item map.
	cache string
	// idFilter is the filter whose values are item keys, e.g. instance-id.
	idFilter string
	// idList is the list parameter whose values are item keys, e.g. InstanceId.
	idList string
	// missing builds the error for unknown keys in idList.
	missing func(ids []string) apiError
	// field returns an item's values for a filter name, and false for an unknown filter.
	field func(item T, name string) ([]string, bool)
	// minResults and maxResults bound MaxResults when it is set.
	minResults, maxResults int
}

// selectKeys returns the sorted keys of the items in m that q selects.
func selectKeys[T any](s *Server, m map[string]T, sel selection[T], q query) ([]string, *apiError) {
	if q.maxResults != 0 && (q.maxResults < sel.minResults || q.maxResults > sel.maxResults) {
		return nil, badRequest("InvalidParameterValue",
			fmt.Sprintf("MaxResults must be between %d and %d", sel.minResults, sel.maxResults))
	}
	listed, hasList := q.lists[sel.idList]
	if hasList && q.maxResults != 0 {
		return nil, badRequest("InvalidParameterCombination",
			fmt.Sprintf("the parameter %ss cannot be used with the parameter maxResults", sel.idList))
	}
	var keys []string
	switch ids, ok := q.values(sel.idFilter); {
	case hasList:
		var missing []string
		for _, id := range listed {
			if _, ok := m[id]; !ok {
				missing = append(missing, id)
			}
		}
		if len(missing) > 0 {
			e := sel.missing(missing)
			return nil, &e
		}
		keys = sortedUnique(listed)
	case ok && sel.idFilter != "":
		keys = make([]string, 0, len(ids))
		for _, id := range ids {
			if _, ok := m[id]; ok {
				keys = append(keys, id)
			}
		}
		keys = sortedUnique(keys)
	default:
		keys = sortedKeys(s, sel.cache, m)
	}
	for _, f := range q.filters {
		if _, ok := sel.field(*new(T), f.name); !ok {
			return nil, badRequest("InvalidParameterValue", fmt.Sprintf("The filter '%s' is invalid", f.name))
		}
	}
	if len(q.filters) == 0 || (len(q.filters) == 1 && q.filters[0].name == sel.idFilter) {
		return keys, nil // already exactly the selection; callers only read it
	}
	cacheKey := ""
	if !hasList && sel.cache != "" {
		var b strings.Builder
		b.WriteString(sel.cache)
		for _, f := range q.filters {
			fmt.Fprintf(&b, "\x00%s=%q", f.name, f.values)
		}
		cacheKey = b.String()
		if out, ok := s.selected[cacheKey]; ok {
			return out, nil
		}
	}
	out := keys[:0:0]
	for _, k := range keys {
		if matches(m[k], q.filters, sel.field) {
			out = append(out, k)
		}
	}
	if cacheKey != "" {
		if s.selected == nil {
			s.selected = map[string][]string{}
		}
		s.selected[cacheKey] = out
	}
	return out, nil
}

func matches[T any](item T, filters []filter, field func(T, string) ([]string, bool)) bool {
	for _, f := range filters {
		have, _ := field(item, f.name)
		if !slices.ContainsFunc(f.values, func(v string) bool { return slices.Contains(have, v) }) {
			return false
		}
	}
	return true
}

func sortedUnique(ids []string) []string {
	out := slices.Clone(ids)
	slices.Sort(out)
	return slices.Compact(out)
}

func badRequest(code, message string) *apiError {
	return &apiError{status: http.StatusBadRequest, code: code, message: message}
}

// tagField answers tag:KEY filters (the tag's value) and the tag-key filter (every key) from
// tags.
func tagField(tags map[string]string, name string) ([]string, bool) {
	if name == "tag-key" {
		return slices.Collect(maps.Keys(tags)), true
	}
	key, ok := strings.CutPrefix(name, "tag:")
	if !ok {
		return nil, false
	}
	if v, ok := tags[key]; ok {
		return []string{v}, true
	}
	return nil, true
}

func instanceField(in snapshot.Instance, name string) ([]string, bool) {
	switch name {
	case "instance-id":
		return []string{in.ID}, true
	case "instance-type":
		return []string{in.Type}, true
	case "subnet-id":
		return []string{in.SubnetID}, true
	case "vpc-id":
		return []string{in.VpcID}, true
	case "availability-zone":
		return []string{in.Zone}, true
	case "instance-state-name":
		return []string{in.State}, true
	case "placement-group-name":
		return []string{in.Placement.GroupName}, true
	}
	return tagField(in.Tags, name)
}

func subnetField(sn snapshot.Subnet, name string) ([]string, bool) {
	switch name {
	case "subnet-id":
		return []string{sn.ID}, true
	case "vpc-id":
		return []string{sn.VpcID}, true
	case "availability-zone":
		return []string{sn.Zone}, true
	case "availability-zone-id":
		return []string{sn.ZoneID}, true
	case "cidr-block":
		return []string{sn.CIDR}, true
	}
	return tagField(sn.Tags, name)
}

func securityGroupField(g snapshot.SecurityGroup, name string) ([]string, bool) {
	switch name {
	case "group-id":
		return []string{g.ID}, true
	case "group-name":
		return []string{g.Name}, true
	case "vpc-id":
		return []string{g.VpcID}, true
	}
	return tagField(g.Tags, name)
}

// placementGroupField answers the filters EC2 documents for DescribePlacementGroups; it has
// no group-id filter (IDs go in GroupId.N).
func placementGroupField(g snapshot.PlacementGroup, name string) ([]string, bool) {
	switch name {
	case "group-name":
		return []string{g.Name}, true
	case "strategy":
		return []string{g.Strategy}, true
	case "state":
		return []string{cmpOr(g.State, "available")}, true
	case "spread-level":
		return []string{g.SpreadLevel}, true
	}
	return nil, false
}

func instanceTypeField(t snapshot.InstanceType, name string) ([]string, bool) {
	switch name {
	case "instance-type":
		return []string{t.Name}, true
	case "hypervisor":
		return []string{t.Hypervisor}, true
	}
	return nil, false
}

func cmpOr(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func notFound(code, format string) func([]string) apiError {
	return func(ids []string) apiError {
		return apiError{status: http.StatusBadRequest, code: code, message: fmt.Sprintf(format, strings.Join(ids, ", "))}
	}
}
