package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"time"

	"github.com/ctxd/ctxd/internal/cmem"
	"github.com/ctxd/ctxd/internal/procstat"
)

// startProfile writes a CPU profile to $CTXD_CPUPROFILE, an execution
// trace to $CTXD_TRACE (`go tool trace`: where a request waited) and,
// when the process ends, a heap profile to $CTXD_MEMPROFILE (all for
// measuring ctxd itself; see BENCHMARKS.md). It returns the function that
// ends them.
func startProfile() func() {
	var stops []func()
	// record starts writing what (a CPU profile, a trace) into the file
	// $env names, when it names one.
	record := func(env, what string, start func(io.Writer) error, stop func()) {
		p := os.Getenv(env)
		if p == "" {
			return
		}
		f, err := os.Create(p)
		if err != nil {
			fmt.Fprintf(os.Stderr, "ctxd: %s: %v\n", what, err)
		} else if err := start(f); err != nil {
			fmt.Fprintf(os.Stderr, "ctxd: %s: %v\n", what, err)
			f.Close()
		} else {
			stops = append(stops, func() { stop(); f.Close() })
		}
	}
	record("CTXD_CPUPROFILE", "cpu profile", pprof.StartCPUProfile, pprof.StopCPUProfile)
	record("CTXD_TRACE", "trace", trace.Start, trace.Stop)
	if p := os.Getenv("CTXD_MEMPROFILE"); p != "" {
		stops = append(stops, func() {
			f, err := os.Create(p)
			if err != nil {
				fmt.Fprintf(os.Stderr, "ctxd: heap profile: %v\n", err)
				return
			}
			defer f.Close()
			runtime.GC()
			if err := pprof.WriteHeapProfile(f); err != nil {
				fmt.Fprintf(os.Stderr, "ctxd: heap profile: %v\n", err)
			}
		})
	}
	if p, every := os.Getenv("CTXD_MEMPROFILE"), os.Getenv("CTXD_MEMPROFILE_EVERY"); p != "" && every != "" {
		// Heap profiles while serving, p.1, p.2, ... every interval: what
		// is live during the background analysis, which the profile at
		// exit (after the workspace closed) no longer shows.
		if d, err := time.ParseDuration(every); err == nil && d > 0 {
			go func() {
				// p.stats gets a line a profile: seconds, then the
				// heap in use, the heap held from the OS (not
				// released) and all the runtime holds, the C heap
				// in use and held (glibc), and the resident set,
				// in MiB.
				stats, _ := os.Create(p + ".stats")
				t0 := time.Now()
				for n := 1; ; n++ {
					time.Sleep(d)
					if f, err := os.Create(fmt.Sprintf("%s.%d", p, n)); err == nil {
						pprof.WriteHeapProfile(f)
						f.Close()
					}
					if stats != nil {
						var m runtime.MemStats
						runtime.ReadMemStats(&m)
						cu, ch, _ := cmem.Stats()
						fmt.Fprintf(stats, "%d %.0f inuse=%d held=%d sys=%d gcs=%d c_inuse=%d c_held=%d rss=%d\n", n, time.Since(t0).Seconds(),
							m.HeapInuse>>20, (m.HeapSys-m.HeapReleased)>>20, (m.Sys-m.HeapReleased)>>20, m.NumGC, cu>>20, ch>>20, vmRSS()>>10)
					}
				}
			}()
		}
	}
	return func() {
		for _, s := range stops {
			s()
		}
	}
}

// vmRSS is the process's resident set in KiB (Linux), 0 elsewhere.
func vmRSS() int { return procstat.KiB("self", "VmRSS") }
