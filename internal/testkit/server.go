package testkit

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// ServerOptions say how StartServer runs `cortex serve`. Zero fields take
// defaults.
type ServerOptions struct {
	// Bin is the cortex binary; "" builds it with Cortex.
	Bin string
	// Args follow "serve --listen 127.0.0.1:0" (--vault, --state, ...).
	Args []string
	// Env is the process's environment; nil passes the test's own.
	Env []string
	// OnLine, when set, sees each line the server writes to stderr as it
	// arrives (for timing a log line), from one goroutine.
	OnLine func(line string)
	// MaxLog bounds the bytes of stderr kept in Logs (the first ones), for
	// runs that log a line per request for minutes; 0 keeps all.
	MaxLog int
}

// Server is one running `cortex serve` on a free loopback port, stopped
// when the test ends.
type Server struct {
	URL     string    // http://127.0.0.1:PORT, from its "listening on" line
	Logs    *Buffer   // what it wrote to stdout and stderr
	Started time.Time // just before the process started
	Pid     int

	t      testing.TB
	cmd    *exec.Cmd
	exited chan struct{} // closed when the process has ended
	err    error         // its exit status, once exited is closed
	stop   sync.Once
}

// StartServer runs `cortex serve --listen 127.0.0.1:0` with opts.Args and
// waits for its "listening on" line; the test fails with the server's log
// when it exits first or takes over a minute. The server is stopped (Stop)
// when the test ends.
func StartServer(t testing.TB, opts ServerOptions) *Server {
	t.Helper()
	bin := opts.Bin
	if bin == "" {
		bin = Cortex(t)
	}
	cmd := exec.Command(bin, append([]string{"serve", "--listen", "127.0.0.1:0"}, opts.Args...)...) // #nosec G204 -- the test's own binary and flags
	cmd.Env = opts.Env
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	s := &Server{Logs: &Buffer{}, t: t, cmd: cmd, exited: make(chan struct{})}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr, cmd.Stdout = pw, s.Logs
	s.Started = time.Now()
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		t.Fatal(err)
	}
	pw.Close()
	s.Pid = cmd.Process.Pid
	urlc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		found, kept := false, 0
		for sc.Scan() {
			line := sc.Text()
			if opts.MaxLog <= 0 || kept < opts.MaxLog {
				kept += len(line) + 1
				s.Logs.Write([]byte(line + "\n"))
			}
			if opts.OnLine != nil {
				opts.OnLine(line)
			}
			if u, ok := strings.CutPrefix(line, "listening on "); ok && !found {
				found = true
				urlc <- u
			}
		}
		pr.Close()
		close(urlc)
	}()
	go func() {
		s.err = cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(func() { s.Stop() })
	select {
	case u, ok := <-urlc:
		if !ok {
			<-s.exited
			t.Fatalf("cortex exited before listening (%v):\n%s", s.err, s.Logs.String())
		}
		s.URL = u
	case <-time.After(time.Minute):
		t.Fatalf("cortex did not start within a minute:\n%s", s.Logs.String())
	}
	return s
}

// Exited is closed when the process has ended, however it ended.
func (s *Server) Exited() <-chan struct{} { return s.exited }

// Stop asks the server to shut down (SIGINT) and waits for it, and
// returns its exit error (nil for a clean exit). A server that does not stop
// within 20 seconds is killed and the test fails. Stopping an ended server
// returns how it ended.
func (s *Server) Stop() error {
	s.stop.Do(func() {
		select {
		case <-s.exited:
			return
		default:
		}
		_ = s.cmd.Process.Signal(os.Interrupt)
		select {
		case <-s.exited:
		case <-time.After(20 * time.Second):
			_ = s.cmd.Process.Kill()
			<-s.exited
			s.t.Errorf("cortex did not stop on SIGINT:\n%s", s.Logs.String())
		}
	})
	<-s.exited
	return s.err
}

// Kill ends the server at once (SIGKILL), as a power cut would, and waits
// for it to be gone.
func (s *Server) Kill() {
	s.t.Helper()
	if err := s.cmd.Process.Kill(); err != nil {
		select {
		case <-s.exited:
		default:
			s.t.Fatalf("kill cortex: %v", err)
		}
	}
	<-s.exited
}
