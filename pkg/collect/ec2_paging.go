package collect

import "fmt"

// ec2MaxPages is the most pages karpnet follows in one Describe call. Every call names at most
// 200 IDs (DescribeInstanceTypes 100 types) with MaxResults 1,000, which EC2 answers in one
// page; 20 pages leave room for EC2's short and empty pages and for tag-filtered
// DescribeSubnets (20,000 subnets). An endpoint whose NextTokens never end then costs at most
// 20 requests a call, 80 for the 4 calls karpnet runs at once: less than the bucket of 100
// Describe requests that EC2 gives the account, and Karpenter with it.
const ec2MaxPages = 20

// ec2PagingError is a Describe call whose NextTokens would not end: a token came back that had
// been followed already (the pages cycle), or the call ran past ec2MaxPages.
type ec2PagingError struct {
	action   string
	pages    int
	repeated bool
}

func (e *ec2PagingError) Error() string {
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
