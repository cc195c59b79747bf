package collect

import "fmt"

// ec2MaxPages is the most pages karpnet follows in one Describe call (calls of IDs other than
// DescribeInstances stop sooner, ec2IDPages). Every call names at most
// 200 IDs (DescribeInstanceTypes 100 types) with MaxResults 1,000, which EC2 answers in one
// page; 20 pages leave room for EC2's short and empty pages and for tag-filtered
// DescribeSubnets (20,000 subnets). An endpoint whose NextTokens never end then costs at most
// 20 requests a call, 80 for the 4 calls karpnet runs at once: less than the bucket of 100
// Describe requests that EC2 gives the account, and Karpenter with it.
const ec2MaxPages = 20

// ec2SparePages is how many pages in a row that bring nothing new of what it asked for a
// Describe call of IDs follows before it stops with a gap: room for EC2's short and empty
// pages of filtered answers. A call stops as soon as every ID it asked for has come back.
const ec2SparePages = 3

// ec2Asked is the set of IDs (or names) a call asked for.
func ec2Asked(ids []string) map[string]bool {
	asked := make(map[string]bool, len(ids))
	for _, id := range ids {
		asked[id] = true
	}
	return asked
}

// ec2KeepAsked appends to out the items of page whose key was asked for and drops the rest,
// so an endpoint that answers more than the filter selects cannot make karpnet hold them.
func ec2KeepAsked[T any](out, page []T, asked map[string]bool, key func(T) string) []T {
	for _, v := range page {
		if asked[key(v)] {
			out = append(out, v)
		}
	}
	return out
}

// ec2PagingError is a Describe call whose NextTokens would not end: a token came back that had
// been followed already (the pages cycle), or the call ran past ec2MaxPages.
type ec2PagingError struct {
	action   string
	pages    int
	repeated bool
	idle     bool
}

func (e *ec2PagingError) Error() string {
	if e.idle {
		return fmt.Sprintf("%s did not end: %d pages in a row brought nothing asked for, after %d pages", e.action,
			ec2SparePages, e.pages)
	}
	if e.repeated {
		return fmt.Sprintf("%s did not end: page %d came back with a NextToken already followed", e.action, e.pages)
	}
	return fmt.Sprintf("%s did not end: still more after %d pages, the most karpnet reads for one call", e.action, e.pages)
}

// ec2Pages calls page with no token, then with each NextToken in turn until none comes back.
// A token seen before, or a page past ec2MaxPages, ends it with an *ec2PagingError.
func ec2Pages(action string, page func(token *string) (next *string, err error)) error {
	return ec2PagesUpTo(action, ec2MaxPages, page)
}

// ec2PagesUpTo is ec2Pages with a bound of its own: the filtered read of a large cluster's
// instances expects about one page per 1,000 of them.
func ec2PagesUpTo(action string, maxPages int, page func(token *string) (next *string, err error)) error {
	seen := map[string]bool{}
	var token *string
	for pages := 1; ; pages++ {
		next, err := page(token)
		if err != nil {
			return err
		}
		switch {
		case next == nil || *next == "":
			return nil
		case seen[*next]:
			return &ec2PagingError{action: action, pages: pages, repeated: true}
		case pages >= maxPages:
			return &ec2PagingError{action: action, pages: pages}
		}
		seen[*next] = true
		token = next
	}
}

// ec2IDPages reads the pages of a Describe call that names the IDs it wants: it keeps only the
// objects asked for, stops without following NextToken once every ID has come back, and ends
// with an *ec2PagingError after ec2SparePages pages in a row that bring no new asked object,
// at a token seen before or at ec2MaxPages. An endpoint whose NextTokens never end then costs a
// call 1 + ec2SparePages requests, and pages of objects nobody asked for are dropped as they come.
type ec2IDPages struct {
	asked map[string]bool
	found map[string]bool
	fresh int
}

func ec2PagesOf(ids []string) *ec2IDPages {
	return &ec2IDPages{asked: ec2Asked(ids), found: make(map[string]bool, len(ids))}
}

// ec2KeepNew appends to out the objects of page that p asked for and counts the ones not seen before.
func ec2KeepNew[T any](p *ec2IDPages, out, page []T, key func(T) string) []T {
	for _, v := range page {
		k := key(v)
		if !p.asked[k] {
			continue
		}
		if !p.found[k] {
			p.found[k] = true
			p.fresh++
		}
		out = append(out, v)
	}
	return out
}

// read calls page with no token, then with each NextToken, as ec2IDPages describes.
func (p *ec2IDPages) read(action string, page func(token *string) (next *string, err error)) error {
	seen := map[string]bool{}
	var token *string
	idle := 0
	for pages := 1; ; pages++ {
		p.fresh = 0
		next, err := page(token)
		if err != nil {
			return err
		}
		if p.fresh == 0 {
			idle++
		} else {
			idle = 0
		}
		switch {
		case next == nil || *next == "" || len(p.found) == len(p.asked):
			return nil
		case seen[*next]:
			return &ec2PagingError{action: action, pages: pages, repeated: true}
		case idle >= ec2SparePages:
			return &ec2PagingError{action: action, pages: pages, idle: true}
		case pages >= ec2MaxPages:
			return &ec2PagingError{action: action, pages: pages}
		}
		seen[*next] = true
		token = next
	}
}
