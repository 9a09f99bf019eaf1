package sessions

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd/internal/testutil"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd"
)

var update = flag.Bool("update", false, "rewrite golden files")

// reseal replaces old with new in an encoded checkpoint and recomputes
// its checksum, to build files a writer would never produce.
func reseal(t *testing.T, data []byte, old, new string) []byte {
	t.Helper()
	body, _, ok := splitChecksum(bytes.TrimRight(data, "\n"))
	if !ok {
		t.Fatal("no checksum member")
	}
	if !bytes.Contains(body, []byte(old)) {
		t.Fatalf("%q not in the body", old)
	}
	body = bytes.Replace(body, []byte(old), []byte(new), 1)
	sum := sha256.Sum256(append(append([]byte(nil), body...), '}'))
	return []byte(string(body) + checksumMember + hex.EncodeToString(sum[:]) + "\"}\n")
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	full := sample("s-1", 3, 20, 6, "full")
	full.Parent = &Parent{SessionID: "s-0", Seq: 2}
	full.Note = "fork of s-0 at 2: <ValueError> & friends"
	tests := []struct {
		name string
		cp   *Checkpoint
		// raw is text that must appear in the file unescaped.
		raw string
	}{
		{"minimal", &Checkpoint{SessionID: "a", Seq: 1, Timestamp: base, State: StateCompleted}, `"state":"completed"`},
		{"full", full, "<ValueError> & friends"},
		{"unicode and html", &Checkpoint{SessionID: "u_1.x-y", Seq: 7, Timestamp: base.In(time.FixedZone("CET", 3600)), State: StateAbandoned,
			UserRequest: "répare <b>ça</b> — 修正 🐛", ConversationHistory: json.RawMessage(` [ {"role":"user", "content":"a<b>&c \u2028"} ] `)}, `"content":"a<b>&c \u2028"`},
		{"empty history array", &Checkpoint{SessionID: "e", Seq: 1, Timestamp: base, State: StateFailed, ConversationHistory: json.RawMessage("[]")}, `"conversation_history":[]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := mustEncode(t, tt.cp)
			got, err := Decode(data)
			if err != nil {
				t.Fatalf("Decode: %v\n%s", err, data)
			}
			if !strings.HasPrefix(got.Checksum, "sha256:") {
				t.Errorf("checksum %q", got.Checksum)
			}
			want := *tt.cp
			want.normalize()
			var compact bytes.Buffer
			if err := json.Compact(&compact, want.ConversationHistory); err != nil {
				t.Fatal(err)
			}
			want.ConversationHistory = compact.Bytes()
			got.Checksum = ""
			if d := cmp.Diff(&want, got, cmp.AllowUnexported(Checkpoint{})); d != "" {
				t.Errorf("round trip (-want +got):\n%s", d)
			}
			if again := mustEncode(t, got); !bytes.Equal(again, data) {
				t.Errorf("re-encoding differs:\n%s\n%s", data, again)
			}
			if !bytes.Contains(data, []byte(tt.raw)) {
				t.Errorf("the file does not hold %s as given: %s", tt.raw, data)
			}
		})
	}
}

func TestEncodeRejects(t *testing.T) {
	tests := []struct {
		name string
		cp   Checkpoint
		want string
	}{
		{"bad id", Checkpoint{SessionID: "../x", Seq: 1, Timestamp: base, State: StateRunning}, "session id"},
		{"empty id", Checkpoint{Seq: 1, Timestamp: base, State: StateRunning}, "session id"},
		{"seq 0", Checkpoint{SessionID: "a", Timestamp: base, State: StateRunning}, "seq"},
		{"no time", Checkpoint{SessionID: "a", Seq: 1, State: StateRunning}, "timestamp"},
		{"bad state", Checkpoint{SessionID: "a", Seq: 1, Timestamp: base, State: "paused"}, "state"},
		{"no state", Checkpoint{SessionID: "a", Seq: 1, Timestamp: base}, "state"},
		{"bad task", Checkpoint{SessionID: "a", Seq: 1, Timestamp: base, State: StateRunning, TaskType: "dance"}, "task_type"},
		{"history object", Checkpoint{SessionID: "a", Seq: 1, Timestamp: base, State: StateRunning, ConversationHistory: json.RawMessage(`{"messages":[]}`)}, "conversation_history"},
		{"history broken", Checkpoint{SessionID: "a", Seq: 1, Timestamp: base, State: StateRunning, ConversationHistory: json.RawMessage(`[{"role":`)}, "conversation_history"},
		{"build request array", Checkpoint{SessionID: "a", Seq: 1, Timestamp: base, State: StateRunning, BuildRequest: json.RawMessage(`[]`)}, "build_request"},
		{"bad parent", Checkpoint{SessionID: "a", Seq: 1, Timestamp: base, State: StateRunning, Parent: &Parent{SessionID: "b"}}, "parent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := encodeFile(&tt.cp)
			if err == nil || !errors.Is(err, ctxd.ErrInvalidParams) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Encode: got %v, want an invalid-params error about %s", err, tt.want)
			}
		})
	}
}

func TestDecodeRejects(t *testing.T) {
	good := mustEncode(t, sample("s-1", 4, 12, 3, "x"))
	flip := append([]byte(nil), good...)
	flip[len(flip)/2] ^= 0x01
	tests := []struct {
		name     string
		data     []byte
		sentinel error
		want     string
	}{
		{"empty", nil, ErrCorrupt, "empty"},
		{"whitespace", []byte(" \n"), ErrCorrupt, "empty"},
		{"truncated to half", good[:len(good)/2], ErrCorrupt, "not valid JSON"},
		{"truncated before the checksum", good[:bytes.LastIndex(good, []byte(checksumMember))], ErrCorrupt, "not valid JSON"},
		{"truncated inside the checksum", good[:len(good)-10], ErrCorrupt, "not valid JSON"},
		{"one bit flipped", flip, ErrCorrupt, "checksum mismatch"},
		{"checksum altered", bytes.Replace(good, []byte(checksumMember), []byte(checksumMember+"0"), 1)[:len(good)], ErrCorrupt, ""},
		{"checksum removed", append(bytes.Clone(good[:bytes.LastIndex(good, []byte(checksumMember))]), '}'), ErrCorrupt, "without its checksum"},
		{"not an object", []byte(`[1,2,3]`), ErrCorrupt, "not a checkpoint object"},
		{"not JSON", []byte("hello"), ErrCorrupt, "not valid JSON"},
		{"newer schema", reseal(t, good, `"schema_version":2`, `"schema_version":3`), ErrNewerSchema, "schema version 3"},
		{"newer schema without checksum", []byte(`{"schema_version":9,"session_id":"a"}`), ErrNewerSchema, "schema version 9"},
		{"schema 1 with a checksum", reseal(t, good, `"schema_version":2`, `"schema_version":1`), ErrCorrupt, "no writer"},
		{"sealed but invalid state", reseal(t, good, `"state":"running"`, `"state":"paused"`), ErrCorrupt, "state"},
		{"sealed but seq 0", reseal(t, good, `"seq":4`, `"seq":0`), ErrCorrupt, "seq"},
		{"sealed but bad id", reseal(t, good, `"session_id":"s-1"`, `"session_id":"../../etc"`), ErrCorrupt, "session id"},
		{"sealed but wrong type", reseal(t, good, `"seq":4`, `"seq":"4"`), ErrCorrupt, "does not decode"},
		{"v1 with a bad state", []byte(`{"session_id":"a","state":"paused"}`), ErrCorrupt, "unknown state"},
		{"v1 with a bad time", []byte(`{"session_id":"a","timestamp":"yesterday"}`), ErrCorrupt, "timestamp"},
		{"v1 with a history object", []byte(`{"session_id":"a","conversation_history":{"x":1}}`), ErrCorrupt, "conversation_history"},
		{"v1 with a bad id", []byte(`{"session_id":"a/b"}`), ErrCorrupt, "session id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cp, err := Decode(tt.data)
			if err == nil {
				t.Fatalf("Decode succeeded: %+v", cp)
			}
			if !errors.Is(err, tt.sentinel) {
				t.Errorf("error %v does not wrap %v", err, tt.sentinel)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not say %q", err, tt.want)
			}
		})
	}
}

func TestMigrateV1(t *testing.T) {
	tests := []struct {
		file, golden string
		wantState    State
		wantTime     time.Time
		wantMsgs     int
	}{
		{"v1_seed.json", "v1_seed.migrated", StateRunning, time.Date(2024, 1, 15, 10, 30, 0, 0, time.UTC), 2},
		{"v1_python.json", "v1_python.migrated", StateFailed, time.Date(2024, 2, 1, 8, 15, 42, 123456000, time.UTC), 1},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			cp, err := Decode(data)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if cp.MigratedFrom() != 1 {
				t.Errorf("MigratedFrom %d, want 1", cp.MigratedFrom())
			}
			if cp.State != tt.wantState || !cp.Timestamp.Equal(tt.wantTime) || cp.HistoryLen() != tt.wantMsgs {
				t.Errorf("state %s time %s messages %d, want %s %s %d", cp.State, cp.Timestamp, cp.HistoryLen(), tt.wantState, tt.wantTime, tt.wantMsgs)
			}
			// The store numbers a migrated file by its name; once numbered
			// it encodes as a current checkpoint.
			cp.Seq = 1
			out := mustEncode(t, cp)
			again, err := Decode(out)
			if err != nil || again.MigratedFrom() != 0 {
				t.Fatalf("re-decode: %v (migrated from %d)", err, again.MigratedFrom())
			}
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, out, "", "  "); err != nil {
				t.Fatal(err)
			}
			testutil.GoldenFile(t, tt.golden, pretty.Bytes(), *update)
		})
	}
}

func TestParseSeqName(t *testing.T) {
	tests := []struct {
		name string
		seq  int
		ok   bool
	}{
		{"000001.json", 1, true},
		{"000123.json", 123, true},
		{"1234567.json", 1234567, true},
		{"000000.json", 0, false},
		{"1.json", 0, false},
		{"0000001.json", 0, false},
		{"-00001.json", 0, false},
		{"000001.json.tmp", 0, false},
		{".tmp-3-123", 0, false},
		{"lock", 0, false},
		{"00000a.json", 0, false},
	}
	for _, tt := range tests {
		seq, ok := parseSeqName(tt.name)
		if seq != tt.seq || ok != tt.ok {
			t.Errorf("parseSeqName(%q) = %d, %v; want %d, %v", tt.name, seq, ok, tt.seq, tt.ok)
		}
	}
}

func TestStateDir(t *testing.T) {
	tests := []struct {
		root, override, want string
	}{
		{"/w", "", "/w/.ctxd"},
		{"/w", "state", "/w/state"},
		{"/w", "/var/ctxd/", "/var/ctxd"},
		{"/w", "../shared", "/shared"},
	}
	for _, tt := range tests {
		if got := StateDir(tt.root, tt.override); got != tt.want {
			t.Errorf("StateDir(%q, %q) = %q, want %q", tt.root, tt.override, got, tt.want)
		}
	}
	if got := Dir("/w/.ctxd"); got != "/w/.ctxd/sessions" {
		t.Errorf("Dir = %q", got)
	}
}
