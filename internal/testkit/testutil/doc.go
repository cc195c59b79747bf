// Package testutil holds what karpnet's tests share: golden files compared with a test's
// output and rewritten with -update (golden.go), and kubectl List fixtures read into
// unstructured objects (kubelist.go). It registers the -update flag, so only tests import
// it, and a test package that imports it must not define -update itself.
package testutil
