package sessions

import (
	"slices"
	"testing"
	"time"
)

// The benchmark checkpoint: a 200-message history and 50 chunks, as the
// issue asks.
const (
	benchMsgs   = 200
	benchChunks = 50
)

// reportPercentiles adds p50 and p99 of the per-operation latencies.
func reportPercentiles(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(d[len(d)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkSave saves checkpoints to one session in steady state: the
// previous checkpoint read under the lock, the new one encoded, written,
// fsynced, linked, the directory fsynced, and the oldest beyond Keep (50)
// verified and removed.
func BenchmarkSave(b *testing.B) {
	ctx := b.Context()
	s := openStore(b, Options{})
	cp := sample("bench", 0, benchMsgs, benchChunks, "bench")
	data, err := encodeFile(&Checkpoint{SessionID: "x", Seq: 1, Timestamp: base, State: StateRunning, ConversationHistory: cp.ConversationHistory, Chunks: cp.Chunks})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("checkpoint file: %d bytes", len(data))
	for range DefaultKeep {
		if _, err := s.Save(ctx, cp); err != nil {
			b.Fatal(err)
		}
	}
	var lat []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		if _, err := s.Save(ctx, cp); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	reportPercentiles(b, lat)
}

// BenchmarkRestore restores the newest checkpoint of a session holding 50:
// the directory read, the file read, its checksum verified and decoded.
func BenchmarkRestore(b *testing.B) {
	ctx := b.Context()
	s := openStore(b, Options{})
	for seq := 1; seq <= DefaultKeep; seq++ {
		if _, err := s.Save(ctx, sample("bench", 0, benchMsgs, benchChunks, "bench")); err != nil {
			b.Fatal(err)
		}
	}
	var lat []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		r, err := s.Restore(ctx, "bench", 0)
		if err != nil {
			b.Fatal(err)
		}
		if r.Checkpoint.Seq != DefaultKeep {
			b.Fatalf("restored %d", r.Checkpoint.Seq)
		}
		lat = append(lat, time.Since(t0))
	}
	reportPercentiles(b, lat)
}

// BenchmarkList lists a store of 20 sessions.
func BenchmarkList(b *testing.B) {
	ctx := b.Context()
	s := openStore(b, Options{})
	for i := range 20 {
		id := "s" + string(rune('a'+i))
		for range 3 {
			if _, err := s.Save(ctx, sample(id, 0, benchMsgs, benchChunks, id)); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		l, err := s.List(ctx)
		if err != nil || len(l.Sessions) != 20 {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeDecode is the CPU part of a save and a restore, without
// the disk.
func BenchmarkEncodeDecode(b *testing.B) {
	cp := sample("bench", 1, benchMsgs, benchChunks, "bench")
	cp.Seq = 1
	b.Run("encode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := encodeFile(cp); err != nil {
				b.Fatal(err)
			}
		}
	})
	data, err := encodeFile(cp)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("decode", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Decode(data); err != nil {
				b.Fatal(err)
			}
		}
	})
}
