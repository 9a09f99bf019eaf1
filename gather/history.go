package gather

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/byteview"
	"github.com/ctxd/ctxd/workspace/tree"
)

// gitChunks renders the history and diff chunks of git facts.
func gitChunks(gi *tree.GitInfo, task ctxd.TaskType) []ctxd.Chunk {
	var out []ctxd.Chunk
	if len(gi.Commits) > 0 {
		p := ctxd.PriorityLow
		if task == ctxd.TaskDebug || task == ctxd.TaskAnalyze {
			p = ctxd.PriorityMedium
		}
		text := tree.FormatLog(gi.Commits)
		out = append(out, metaChunk("git:log", ctxd.ChunkHistory, p, text, fmt.Sprintf("last %d commits", len(gi.Commits))))
	}
	if d := gi.Diff; d != nil && (d.Patch != "" || len(d.Changes) > 0) {
		p := ctxd.PriorityMedium
		switch task {
		case ctxd.TaskDebug:
			p = ctxd.PriorityHigh // recent changes are where bugs come from
		case ctxd.TaskAnalyze:
			p = ctxd.PriorityLow
		}
		out = append(out, metaChunk("git:diff", ctxd.ChunkDiff, p, tree.FormatDiff(d), "uncommitted changes"))
	}
	return out
}

func metaChunk(source string, ct ctxd.ChunkType, p ctxd.Priority, text, reason string) ctxd.Chunk {
	sum := sha256.Sum256([]byte(text))
	return ctxd.Chunk{
		Source:    source,
		ChunkType: ct,
		Priority:  p,
		Hash:      hex.EncodeToString(sum[:]),
		Facts:     ctxd.Facts{Reasons: []string{reason}, Size: int64(len(text)), Lines: byteview.CountLines(text)},
		Content:   text,
	}
}
