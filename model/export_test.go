package model

// Test-only helpers of the package.

// body is bodyParts joined into one buffer.
func (c *Chat) body(req *Request, modelID string) []byte {
	parts, n := c.bodyParts(req, modelID)
	b := make([]byte, 0, n)
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}
