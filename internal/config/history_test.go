package config

import (
	"errors"
	"io"
	"path/filepath"
	"testing"
)

func TestHistorySettings(t *testing.T) {
	dir := t.TempDir()
	base := []string{"--vault", filepath.Join(dir, "v"), "--state", filepath.Join(dir, "s")}
	c, err := Parse(base, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.HistoryDays != 30 || c.HistoryMaxBytes != 512<<20 {
		t.Fatalf("defaults: %d days, %d bytes", c.HistoryDays, c.HistoryMaxBytes)
	}
	c, err = Parse(append(base, "--history-max-mb", "2048"), env(map[string]string{"CORTEX_HISTORY_DAYS": "7"}), io.Discard)
	if err != nil || c.HistoryDays != 7 || c.HistoryMaxBytes != 2048<<20 {
		t.Fatalf("set: %d days, %d bytes, %v", c.HistoryDays, c.HistoryMaxBytes, err)
	}
	for _, args := range [][]string{{"--history-days", "0"}, {"--history-max-mb", "0"}, {"--history-max-mb", "lots"}} {
		_, err := Parse(append(base, args...), env(nil), io.Discard)
		var ce *Error
		if !errors.As(err, &ce) || ce.Hint == "" {
			t.Errorf("%q: %v, want a config error with a hint", args, err)
		}
	}
}
