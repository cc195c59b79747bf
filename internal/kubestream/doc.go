// Package kubestream reads Kubernetes API answers as they come, into what karpnet keeps of
// them, without holding an answer whole or building what is not read: custom resource lists
// in JSON one item at a time (DecodeListStream), each item decoded with only the parts read
// (Items.Reads) or, for NodeClaims, read straight from its text (ReadNodeClaim); node lists
// in protobuf split into their nodes as they come (StreamNodeList), each node decoded without
// the fields karpnet drops (DecodeNode). Its tests and fuzz targets hold every reader to what
// encoding/json, client-go's unstructured decoder and the generated protobuf decoders make of
// the same bytes.
//
// It says nothing of what to ask the API server for, and keeps no state: the buffers node
// list pages are read into are the caller's (Buffers), and the names a list's items share are
// made for each list.
package kubestream
