package procstat

import (
	"runtime"
	"testing"
)

func TestKiB(t *testing.T) {
	if runtime.GOOS != "linux" {
		if KiB("self", "VmRSS") != 0 {
			t.Error("non-zero without /proc")
		}
		return
	}
	rss, peak := KiB("self", "VmRSS"), KiB("self", "VmHWM")
	if rss <= 0 || peak < rss {
		t.Errorf("VmRSS %d, VmHWM %d KiB", rss, peak)
	}
	if KiB("self", "NoSuchField") != 0 || KiB("0", "VmRSS") != 0 {
		t.Error("a missing field or process is not 0")
	}
}
