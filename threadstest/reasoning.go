package threadstest

// The model's reasoning and a reply's parent message, as a RunScript
// scripts them: the events the service sends for them (read from its
// source at the captures' commit, 6861a3f: no capture holds them), and
// AG-UI's newer reasoning names (@ag-ui/core 0.0.57 and 1.0).

// RunReasoning is the reasoning a [RunScript] makes the model stream
// before its reply (before its component, when it renders one). Like the
// service, the fake keeps no reasoning in the messages it lists.
type RunReasoning struct {
	// Names is the event names it comes under; the zero value is what
	// the service sends today.
	Names ReasoningNames
	// Blocks are its texts, each streamed one word per event.
	Blocks []string
	// Phase also sends the start and end of the reasoning phase around
	// the blocks: THINKING_START and THINKING_END (which the service does
	// not send today), or REASONING_START and REASONING_END, with the
	// reply's message id.
	Phase bool
	// EncryptedValue, with AG-UI's names, is sent after the blocks as
	// REASONING_ENCRYPTED_VALUE (subtype "message", entityId the reply's
	// message id).
	EncryptedValue string
}

// ReasoningNames chooses the event names of a [RunReasoning].
type ReasoningNames int

// The sets of names a [RunReasoning] may stream under.
const (
	// ReasoningThinking is what the service sends today: per block
	// THINKING_TEXT_MESSAGE_START, THINKING_TEXT_MESSAGE_CONTENT per word
	// and THINKING_TEXT_MESSAGE_END, with no message id.
	ReasoningThinking ReasoningNames = iota
	// ReasoningAGUI is AG-UI's names (0.0.57, and the only ones of 1.0):
	// per block REASONING_MESSAGE_START (role "reasoning"),
	// REASONING_MESSAGE_CONTENT per word and REASONING_MESSAGE_END, each
	// with the reply's message id.
	ReasoningAGUI
	// ReasoningChunks is AG-UI's shorthand: REASONING_MESSAGE_CHUNK per
	// word, the first with the reply's message id, the rest without. A
	// run of chunks of one message is one block, so the Blocks arrive as
	// one, joined by a blank line.
	ReasoningChunks
)

// reasoning streams a script's reasoning for message msgID.
func (rs *runStream) reasoning(msgID string, r RunReasoning) bool {
	thinking := r.Names == ReasoningThinking
	id := msgID
	if thinking {
		id = "" // the service's THINKING_* events name no message
	}
	if r.Phase {
		typ := "REASONING_START"
		if thinking {
			typ = "THINKING_START"
		}
		if !rs.emit(runEvent{Type: typ, MessageID: id}, true) {
			return false
		}
	}
	switch r.Names {
	case ReasoningChunks:
		chunkID := id
		for i, b := range r.Blocks {
			if i > 0 {
				b = "\n\n" + b
			}
			for _, w := range words(b) {
				if !rs.emit(runEvent{Type: "REASONING_MESSAGE_CHUNK", MessageID: chunkID, Delta: w}, true) {
					return false
				}
				chunkID = ""
			}
		}
	default:
		start, content, end, role := "REASONING_MESSAGE_START", "REASONING_MESSAGE_CONTENT", "REASONING_MESSAGE_END", "reasoning"
		if thinking {
			start, content, end, role = "THINKING_TEXT_MESSAGE_START", "THINKING_TEXT_MESSAGE_CONTENT", "THINKING_TEXT_MESSAGE_END", ""
		}
		for _, b := range r.Blocks {
			if !rs.emit(runEvent{Type: start, MessageID: id, Role: role}, true) {
				return false
			}
			for _, w := range words(b) {
				if !rs.emit(runEvent{Type: content, MessageID: id, Delta: w}, true) {
					return false
				}
			}
			if !rs.emit(runEvent{Type: end, MessageID: id}, true) {
				return false
			}
		}
	}
	if r.EncryptedValue != "" && !thinking {
		if !rs.emit(runEvent{Type: "REASONING_ENCRYPTED_VALUE", Subtype: "message", EntityID: msgID, EncryptedValue: r.EncryptedValue}, true) {
			return false
		}
	}
	if r.Phase {
		typ := "REASONING_END"
		if thinking {
			typ = "THINKING_END"
		}
		return rs.emit(runEvent{Type: typ, MessageID: id}, true)
	}
	return true
}

// parentFirst writes the CUSTOM tambo.message.parent event before an event
// of the reply, when the script gives the reply a parent: the service
// writes it before each batch of a child message's events (here, each
// event of the message, its reasoning included). It reports false when
// the stream has ended.
func (rs *runStream) parentFirst(ev runEvent) bool {
	parent := rs.sc.ParentMessageID
	if parent == "" {
		return true
	}
	switch {
	case ev.Type == "RUN_STARTED", ev.Type == "RUN_FINISHED", ev.Type == "RUN_ERROR", ev.Name == "tambo.run.awaiting_input":
		return true // the run's events, not the message's
	}
	rs.s.mu.Lock()
	msgID := ""
	if rs.run.reply != nil {
		msgID = rs.run.reply.ID
	}
	rs.s.mu.Unlock()
	if msgID == "" {
		return true
	}
	return rs.write(runEvent{Type: "CUSTOM", Name: "tambo.message.parent", Value: struct {
		MessageID       string `json:"messageId"`
		ParentMessageID string `json:"parentMessageId"`
	}{msgID, parent}})
}
