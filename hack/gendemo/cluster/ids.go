package cluster

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
)

// seed makes every derived ID and address specific to this demo.
const seed = "karpnet-demo-v1"

// digest returns the SHA-256 of the seed, kind and key.
func digest(kind, key string) [32]byte {
	return sha256.Sum256([]byte(seed + "/" + kind + "/" + key))
}

// hexID returns an AWS-style ID such as i-0123456789abcdef0: prefix, "-0" and 16 hex digits.
func hexID(prefix, key string) string {
	d := digest(prefix, key)
	return prefix + "-0" + hex.EncodeToString(d[:8])
}

// number returns a number in [0, n) derived from kind and key.
func number(kind, key string, n uint64) uint64 {
	d := digest(kind, key)
	return binary.BigEndian.Uint64(d[:8]) % n
}

// suffix returns a Kubernetes generateName-style suffix of five characters.
func suffix(key string) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	d := digest("suffix", key)
	b := make([]byte, 5)
	for i := range b {
		b[i] = alphabet[int(d[i])%len(alphabet)]
	}
	return string(b)
}

// uid returns a UUID-shaped object UID.
func uid(key string) string {
	d := digest("uid", key)
	h := hex.EncodeToString(d[:16])
	return fmt.Sprintf("%s-%s-4%s-a%s-%s", h[0:8], h[8:12], h[13:16], h[17:20], h[20:32])
}

// hex64 returns 64 hex digits, e.g. a sandbox ID.
func hex64(key string) string {
	d := digest("hex64", key)
	return hex.EncodeToString(d[:])
}
