// Command convert-trajectories converts SWE-agent (*.traj) and
// mini-SWE-agent (*.traj.json) trajectories into replay sessions in the three wire formats at the 16k, 32k, 128k
// and 200k windows (compact/smart/replay/convert):
//
//	go run ./scripts/convert-trajectories -in DIR_OF_TRAJ -out CORPUS_DIR
//
// The corpus it writes is what `ctxd replay-report` and the trajectory
// benchmark ($CTXD_TRAJECTORY_CORPUS, BENCHMARKS.md) read. Trajectories
// are third-party data: keep them and the corpus outside the repository.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/smart/replay/convert"
)

func main() {
	in := flag.String("in", "", "directory of *.traj and *.traj.json files")
	out := flag.String("out", "", "directory to write session files to")
	model := flag.String("model", "gpt-4o", "model the sessions are for")
	prefix := flag.String("prefix", "t", "session name prefix (keeps corpora from several sources apart)")
	flag.Parse()
	if *in == "" || *out == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*in, *out, *model, *prefix); err != nil {
		fmt.Fprintln(os.Stderr, "convert-trajectories:", err)
		os.Exit(1)
	}
}

func run(in, out, model, prefix string) error {
	files, err := filepath.Glob(filepath.Join(in, "*.traj"))
	if err != nil {
		return err
	}
	mini, err := filepath.Glob(filepath.Join(in, "*.traj.json"))
	if err != nil {
		return err
	}
	files = append(files, mini...)
	if len(files) == 0 {
		return fmt.Errorf("no *.traj or *.traj.json files in %s", in)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	n := 0
	for i, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return err
		}
		t, err := convert.Parse(fh)
		fh.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", filepath.Base(f), err)
		}
		name := fmt.Sprintf("%s%02d", prefix, i+1)
		for _, window := range []int{16000, 32000, 128000, 200000} {
			for _, format := range request.Formats {
				s, err := t.Session(name, format, model, window)
				if err != nil {
					return err
				}
				s.Description = "converted from " + strings.TrimSuffix(strings.TrimSuffix(filepath.Base(f), ".json"), ".traj")
				b, err := json.MarshalIndent(s, "", " ")
				if err != nil {
					return err
				}
				p := filepath.Join(out, fmt.Sprintf("%s-%dk-%s.json", name, window/1000, format))
				if err := os.WriteFile(p, b, 0o644); err != nil {
					return err
				}
				n++
			}
		}
	}
	fmt.Printf("%d trajectories, %d sessions written to %s\n", len(files), n, out)
	return nil
}
