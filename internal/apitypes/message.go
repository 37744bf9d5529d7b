package apitypes

import "strings"

// Text returns the message's text: its text parts joined in order. Other
// parts (images, audio, resources) are left out.
func (m Message) Text() string {
	return joinText(m.Content)
}

// Text returns the message's text parts joined in order.
func (m MessageRequest) Text() string {
	return joinText(m.Content)
}

func joinText(parts []ContentPart) string {
	// One text part is the common case; return it without copying.
	first, n := -1, 0
	for i, p := range parts {
		if p.Type == ContentPartTypeText {
			if first < 0 {
				first = i
			}
			n++
		}
	}
	switch n {
	case 0:
		return ""
	case 1:
		return parts[first].Text
	}
	var b strings.Builder
	for _, p := range parts[first:] {
		if p.Type == ContentPartTypeText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}
