package snapshot

import "bytes"

// ReadSequential is ReadLimited with every list element decoded by json.Decoder, one at a time.
func ReadSequential(data []byte, maxBytes int64) (*Snapshot, error) {
	sequential.Store(true)
	defer sequential.Store(false)
	return ReadLimited(bytes.NewReader(data), maxBytes)
}
