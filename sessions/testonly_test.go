package sessions

// Functions only the tests use.

// encodeFile is the file form of cp (encode without the checksum).
func encodeFile(cp *Checkpoint) ([]byte, error) {
	data, _, err := encode(cp)
	return data, err
}
