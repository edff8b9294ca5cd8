package console_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// browser is a headless Chromium driven over the DevTools protocol on a
// pipe (--remote-debugging-pipe: JSON messages separated by NUL bytes,
// commands on the child's fd 3, answers and events on its fd 4), so a
// test can type into a page and click as a person does — what
// --dump-dom cannot. One page (target) per browser.
type browser struct {
	t       *testing.T
	cmd     *exec.Cmd
	in      *os.File // our end of fd 3
	session string   // the page's flattened session

	mu       sync.Mutex
	next     int
	waiting  map[int]chan cdpMessage
	messages []string // the page's console errors and uncaught exceptions
	done     chan struct{}
}

type cdpMessage struct {
	ID     int             `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
}

// newBrowser starts Chromium (bin) with one blank page, its console and
// exceptions recorded; it is closed when the test ends.
func newBrowser(t *testing.T, bin string) *browser {
	t.Helper()
	cmdR, cmdW, err := os.Pipe() // we write commands; Chromium reads fd 3
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe() // Chromium writes fd 4; we read
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
		"--user-data-dir="+t.TempDir(), "--remote-debugging-pipe", "--window-size=1100,800", "about:blank")
	cmd.ExtraFiles = []*os.File{cmdR, outW}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cmdR.Close()
	outW.Close()
	b := &browser{t: t, cmd: cmd, in: cmdW, waiting: map[int]chan cdpMessage{}, done: make(chan struct{})}
	go b.read(outR) // owned by b: ends when Chromium closes fd 4 (it exits)
	t.Cleanup(func() {
		cmdW.Close() // Chromium exits when its command pipe closes
		select {
		case <-b.done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-b.done
		}
		cmd.Wait()
		if t.Failed() {
			t.Logf("chromium's log:\n%s", stderr.String())
		}
	})
	var target struct {
		TargetID string `json:"targetId"`
	}
	b.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var att struct {
		SessionID string `json:"sessionId"`
	}
	b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att)
	b.session = att.SessionID
	for _, m := range []string{"Runtime.enable", "Log.enable", "Page.enable"} {
		b.call(b.session, m, map[string]any{}, nil)
	}
	return b
}

// read dispatches Chromium's messages: answers to their callers, the
// page's error events into messages.
func (b *browser) read(r *os.File) {
	defer close(b.done)
	defer r.Close()
	br := bufio.NewReader(r)
	for {
		raw, err := br.ReadBytes(0)
		if err != nil {
			return
		}
		var m cdpMessage
		if json.Unmarshal(raw[:len(raw)-1], &m) != nil {
			continue
		}
		b.mu.Lock()
		if ch, ok := b.waiting[m.ID]; ok && m.ID != 0 {
			delete(b.waiting, m.ID)
			ch <- m
		}
		switch m.Method {
		case "Runtime.exceptionThrown":
			b.messages = append(b.messages, "exception: "+string(m.Params))
		case "Runtime.consoleAPICalled":
			var p struct {
				Type string `json:"type"`
			}
			json.Unmarshal(m.Params, &p)
			if p.Type == "error" || p.Type == "warning" || p.Type == "assert" {
				b.messages = append(b.messages, "console."+p.Type+": "+string(m.Params))
			}
		case "Log.entryAdded":
			var p struct {
				Entry struct {
					Level, Text, URL string
				} `json:"entry"`
			}
			json.Unmarshal(m.Params, &p)
			if p.Entry.Level == "error" {
				b.messages = append(b.messages, "log: "+p.Entry.Text+" "+p.Entry.URL)
			}
		}
		b.mu.Unlock()
	}
}

// call sends a command and decodes its result into out (nil: ignored);
// an error answer or no answer within a minute fails the test.
func (b *browser) call(session, method string, params any, out any) {
	b.t.Helper()
	b.mu.Lock()
	b.next++
	id := b.next
	ch := make(chan cdpMessage, 1)
	b.waiting[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	data, err := json.Marshal(msg)
	if err != nil {
		b.t.Fatal(err)
	}
	if _, err := b.in.Write(append(data, 0)); err != nil {
		b.t.Fatalf("%s: %v", method, err)
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			b.t.Fatalf("%s: %s", method, m.Error.Message)
		}
		if out != nil {
			if err := json.Unmarshal(m.Result, out); err != nil {
				b.t.Fatalf("%s: %v: %s", method, err, m.Result)
			}
		}
	case <-b.done:
		b.t.Fatalf("%s: chromium exited", method)
	case <-time.After(time.Minute):
		b.t.Fatalf("%s: no answer within a minute", method)
	}
}

// eval evaluates a JavaScript expression in the page (awaiting a
// promise) and decodes its value into out.
func (b *browser) eval(expr string, out any) {
	b.t.Helper()
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails json.RawMessage `json:"exceptionDetails"`
	}
	b.call(b.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &r)
	if r.ExceptionDetails != nil {
		b.t.Fatalf("evaluate %s: %s", expr, r.ExceptionDetails)
	}
	if out != nil && r.Result.Value != nil {
		if err := json.Unmarshal(r.Result.Value, out); err != nil {
			b.t.Fatalf("evaluate %s: %v: %s", expr, err, r.Result.Value)
		}
	}
}

// navigate loads url in the page.
func (b *browser) navigate(url string) {
	b.t.Helper()
	b.call(b.session, "Page.navigate", map[string]any{"url": url}, nil)
}

// waitFor evaluates cond (a boolean expression) until it holds, up to
// two minutes.
func (b *browser) waitFor(what, cond string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for pause := 20 * time.Millisecond; ; pause = min(pause*2, 500*time.Millisecond) {
		var ok bool
		b.eval("(() => { try { return !!("+cond+"); } catch (e) { return false; } })()", &ok) // false while the page loads
		if ok {
			return
		}
		select {
		case <-ctx.Done():
			var body string
			b.eval("document.body.innerText", &body)
			b.t.Fatalf("%s: not within 2 minutes; the page reads:\n%s", what, body)
		case <-time.After(pause):
		}
	}
}

// typeInto focuses the element selector finds, selects what it holds and
// types text over it (as insertText: an input event per insertion, the
// way a person's typing or pasting reaches the page).
func (b *browser) typeInto(selector, text string) {
	b.t.Helper()
	var found bool
	b.eval(fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e) return false; e.focus(); e.select(); return true; })()`, selector), &found)
	if !found {
		b.t.Fatalf("no element %s to type into", selector)
	}
	b.call(b.session, "Input.insertText", map[string]any{"text": text}, nil)
}

// click presses and releases the mouse's left button at the middle of
// the element selector finds.
func (b *browser) click(selector string) {
	b.t.Helper()
	var at struct{ X, Y float64 }
	b.eval(fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.scrollIntoView(); const r = e.getBoundingClientRect(); return {x: r.x + r.width/2, y: r.y + r.height/2}; })()`, selector), &at)
	for _, typ := range []string{"mousePressed", "mouseReleased"} {
		b.call(b.session, "Input.dispatchMouseEvent", map[string]any{"type": typ, "x": at.X, "y": at.Y, "button": "left", "clickCount": 1}, nil)
	}
}

// errors are the page's console errors and exceptions so far.
func (b *browser) errors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.messages...)
}
