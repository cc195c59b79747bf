// Package kubestream reads Kubernetes API answers as they come, into what karpnet keeps of
// them, without holding an answer whole or building what is not read: custom resource lists
// in JSON one item at a time (DecodeListStream), each item decoded with only the parts read
// (Items.Reads) or, for NodeClaims, read straight from its text (ReadNodeClaim). Its tests
// and fuzz targets hold every reader to what encoding/json and client-go's unstructured
// decoder make of the same bytes.
//
// It says nothing of what to ask the API server for, and keeps no state: the names a list's
// items share are made for each list.
package kubestream
