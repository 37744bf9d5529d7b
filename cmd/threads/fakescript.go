package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/threadsapi/threads-go/threadstest"
)

// fakeScriptHelp is "threads help fake-script": the file of run scripts
// that "threads fake --script FILE" reads.
const fakeScriptHelp = `The run scripts of "threads fake --script FILE".

FILE is a JSON array of run scripts. Each /v1 run (v1-run, the SDK's Run,
CreateAndRun...) takes the next script, in order; once they are used up, a
run gets the fake's default model (a reply "You said: ...", or a call of
the first tool a request offers). A member not listed here is an error
(exit 2). Every member is optional:

  text            the reply, streamed word by word
  toolCalls       tool calls the model makes, each {"name", "arguments"
                  (an object), "id" (default call_1, call_2...)}: the run
                  pauses for their results (outcome awaiting_tools, exit 0,
                  "pending tool call:" lines)
  error           the run fails: {"code" (default INTERNAL_ERROR),
                  "message", "status" (default 500), "category",
                  "retryable"}: exit 1, the code on stderr
  errorAfter      events sent before the failure (default 0)
  pace            the pause between two events, a Go duration ("300ms"):
                  a slow run
  hold            true: the run stops after holdAfter events until it is
                  cancelled (v1-cancel, Ctrl-C: exits 3 and 130) or the fake
                  stops; the fake then prints on stderr
                    threads fake: run RUN_ID of thread THREAD_ID is held; ...
  holdAfter       events sent before the hold (default 0)
  cancelEnd       how a cancelled run's stream ends: "RUN_ERROR" (default)
                  or "RUN_FINISHED" (the service's two habits)
  reasoning       the model's reasoning blocks, streamed before the reply
                  (v1-run --reasoning shows them)
  reasoningNames  "thinking" (the service's THINKING_* events, default),
                  "agui" (REASONING_*) or "chunks" (REASONING_MESSAGE_CHUNK)
  usage           AG-UI 1.0's token usage on the run's RUN_FINISHED (or its
                  failure's RUN_ERROR): [{"provider", "model",
                  "inputTokens", "outputTokens", "totalTokens",
                  "reasoningTokens", "cachedInputTokens",
                  "cacheWriteInputTokens"}]; v1-run --json shows it on its
                  end line
  interrupts      the run ends waiting for input from outside (AG-UI 1.0):
                  its RUN_FINISHED carries the interrupt outcome with these,
                  each {"id" (default int_1, int_2...), "reason" (default
                  input_required), "message", "toolCallId",
                  "responseSchema", "expiresAt", "metadata"}; v1-run
                  prints an "interrupt:" line each (exit 0), its --json
                  end line has outcome interrupt. The next run's resume[]
                  answers them (the fake records it and checks nothing)

Example (runs.json), one run per script:
  [
    {"text": "Hello there.", "usage": [{"provider": "openai", "model": "gpt-5",
      "inputTokens": 12, "outputTokens": 3, "totalTokens": 15}]},
    {"toolCalls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]},
    {"error": {"code": "LLM_CLIENT_ERROR", "message": "the model refused", "status": 400}},
    {"text": "a long story", "hold": true, "holdAfter": 2},
    {"text": "Hmm.", "reasoning": ["Let me think."]}
  ]
  threads fake --script runs.json > fake.env 2> fake.log &
  eval "$(cat fake.env)"
  threads v1-run --user-key u1 --new hello --json   # exit 0, usage on the end line
`

// fakeRunScript is one run of a --script file.
type fakeRunScript struct {
	Text      string `json:"text"`
	ToolCalls []struct {
		ID        string         `json:"id"`
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	} `json:"toolCalls"`
	Error *struct {
		Code      string `json:"code"`
		Message   string `json:"message"`
		Status    int    `json:"status"`
		Category  string `json:"category"`
		Retryable bool   `json:"retryable"`
	} `json:"error"`
	ErrorAfter     int                        `json:"errorAfter"`
	Pace           string                     `json:"pace"`
	Hold           bool                       `json:"hold"`
	HoldAfter      int                        `json:"holdAfter"`
	CancelEnd      string                     `json:"cancelEnd"`
	Reasoning      []string                   `json:"reasoning"`
	ReasoningNames string                     `json:"reasoningNames"`
	Usage          []threadstest.TokenUsage   `json:"usage"`
	Interrupts     []threadstest.RunInterrupt `json:"interrupts"`
}

// maxScriptFile bounds what --script reads.
const maxScriptFile = 4 << 20

// loadFakeScripts reads a --script file. Held runs wait on hold (closed
// when the fake stops) and report to held.
func loadFakeScripts(path string, hold <-chan struct{}, held func(threadID, runID string)) ([]threadstest.RunScript, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxScriptFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxScriptFile {
		return nil, fmt.Errorf("%s: over %d bytes", path, maxScriptFile)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var in []fakeRunScript
	if err := dec.Decode(&in); err != nil {
		return nil, fmt.Errorf("%s: not a JSON array of run scripts (see \"threads help fake-script\"): %w", path, err)
	}
	out := make([]threadstest.RunScript, len(in))
	for i, f := range in {
		sc := threadstest.RunScript{Text: f.Text, ErrorAfter: f.ErrorAfter, HoldAfter: f.HoldAfter, CancelEnd: f.CancelEnd, Usage: f.Usage,
			Interrupts: f.Interrupts}
		where := fmt.Sprintf("%s: run script %d", path, i+1)
		for _, c := range f.ToolCalls {
			if c.Name == "" {
				return nil, fmt.Errorf("%s: a tool call without a name", where)
			}
			sc.ToolCalls = append(sc.ToolCalls, threadstest.RunToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
		}
		if e := f.Error; e != nil {
			sc.Error = &threadstest.RunFailure{Code: e.Code, Message: e.Message, Status: e.Status, Category: e.Category, Retryable: e.Retryable}
		}
		if f.Pace != "" {
			d, err := time.ParseDuration(f.Pace)
			if err != nil || d < 0 || d > time.Minute {
				return nil, fmt.Errorf("%s: pace %q: want a duration from 0 to 1m", where, f.Pace)
			}
			sc.Pace = d
		}
		switch f.CancelEnd {
		case "", "RUN_ERROR", "RUN_FINISHED":
		default:
			return nil, fmt.Errorf("%s: cancelEnd %q: want RUN_ERROR or RUN_FINISHED", where, f.CancelEnd)
		}
		if f.Hold {
			sc.Hold, sc.OnHoldRun = hold, held
		}
		if len(f.Reasoning) > 0 {
			r := &threadstest.RunReasoning{Blocks: f.Reasoning}
			switch f.ReasoningNames {
			case "", "thinking":
			case "agui":
				r.Names = threadstest.ReasoningAGUI
			case "chunks":
				r.Names = threadstest.ReasoningChunks
			default:
				return nil, fmt.Errorf("%s: reasoningNames %q: want thinking, agui or chunks", where, f.ReasoningNames)
			}
			sc.Reasoning = r
		}
		out[i] = sc
	}
	return out, nil
}

// lockedWriter serialises the writes of the fake's goroutines (a held
// run's notice) with the command's own.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
