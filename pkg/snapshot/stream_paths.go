package snapshot

import "encoding/json"

// joinPath writes the path of a field inside the snapshot, as errors name it: path.key.
func joinPath(path, key string) string {
	switch {
	case path == "":
		return key
	case key == "":
		return path
	}
	return path + "." + key
}

// jsonKind names the JSON type of a token as encoding/json's errors do.
func jsonKind(tok json.Token) string {
	switch tok.(type) {
	case string:
		return "string"
	case float64, json.Number:
		return "number"
	case bool:
		return "bool"
	case json.Delim:
		if tok == json.Delim('[') {
			return "array"
		}
		return "object"
	}
	return "value"
}
