package sim

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
)

// handleTokenize serves vLLM's POST /tokenize: {"prompt": "…"} or
// {"messages": [...]} in, {"count", "max_model_len", "tokens"} out. The
// count is the one usage.prompt_tokens reports for the same input.
func (s *Server) handleTokenize(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, "BadRequestError", "use POST")
		return
	}
	var req struct {
		Prompt   json.RawMessage `json:"prompt"`
		Messages []chatMessage   `json:"messages"`
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "BadRequestError", "invalid request: "+err.Error())
		return
	}
	chat := len(req.Messages) > 0
	text, n, err := s.promptText(chat, req.Messages, req.Prompt)
	if err != nil {
		writeError(w, http.StatusBadRequest, "BadRequestError", err.Error())
		return
	}
	var ids []int64
	if chat {
		// Template tokens get fixed ids ahead of each message's tokens.
		var msgs []chatMessage = req.Messages
		for _, m := range msgs {
			for range s.p.ChatTemplateTokens {
				ids = append(ids, 151644)
			}
			t, _ := messageText(m.Content)
			ids = append(ids, s.tok.IDs(t)...)
		}
	} else {
		ids = s.tok.IDs(text)
	}
	// The token list of a long prompt is large; append it by hand.
	b := make([]byte, 0, 64+len(ids)*7)
	b = append(b, `{"count":`...)
	b = strconv.AppendInt(b, n, 10)
	b = append(b, `,"max_model_len":`...)
	b = strconv.AppendInt(b, s.p.MaxModelLen, 10)
	b = append(b, `,"tokens":[`...)
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, id, 10)
	}
	b = append(b, `],"token_strs":null}`...)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}
