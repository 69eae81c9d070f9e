// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulksink

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"time"
)

// readySep stands in the first line of a sink (see Serve) before the URL that Start takes.
const readySep = ": listening on "

// Main runs the sink as a command with the command-line arguments args: it listens, writes
// "bulksink: listening on http://host:port (count mode)" as its first line on stdout, and
// serves until ctx ends or, with -stdin, until stdin is closed (so that a child process ends
// with its parent).
func Main(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("bulksink", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:0", "address to listen on")
	count := fs.String("count", "lines", `how documents are counted: "lines" (decode the body and count its lines, two per document) or "header" (trust X-Elastic-Event-Count, do not decompress; a request without it is counted by its lines)`)
	version := fs.String("version", "9.1.0", "Elasticsearch version to announce")
	watchStdin := fs.Bool("stdin", false, "exit when stdin is closed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	mode, err := ParseCountMode(*count)
	if err != nil {
		return err
	}
	var in io.Reader
	if *watchStdin {
		in = stdin
	}
	return Serve(ctx, *listen, NewHandler(mode, *version), "bulksink", fmt.Sprintf(" (count %s)", mode), in, stdout)
}

// Serve listens on addr, writes "<name>: listening on http://host:port<note>" as its first
// line on stdout (the line Start waits for), and serves h until ctx ends or, when stdin is not
// nil, until stdin is closed (so that a child process ends with its parent). It is the Main of
// each sink of internal/lab.
func Serve(ctx context.Context, addr string, h http.Handler, name, note string, stdin io.Reader, stdout io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if stdin != nil {
		go func() {
			_, _ = io.Copy(io.Discard, stdin)
			cancel()
		}()
	}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if _, err := fmt.Fprintf(stdout, "%s%shttp://%s%s\n", name, readySep, ln.Addr(), note); err != nil {
		return err
	}
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Process is a sink running as a child process.
type Process struct {
	URL   string
	cmd   *exec.Cmd
	stdin io.Closer
}

// Start starts cmd, a command that runs Main with -stdin (or another sink of internal/lab that
// writes "<name>: listening on <url>" as its first line and ends when its stdin is closed, as
// the OTLP sink does), and waits for its first line. Stop ends it; so does the end of the
// calling process, which closes the child's stdin.
func Start(cmd *exec.Cmd) (*Process, error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err = cmd.Start(); err != nil {
		return nil, err
	}
	p := &Process{cmd: cmd, stdin: stdin}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		_ = p.Stop()
		return nil, fmt.Errorf("sink did not start: %w", err)
	}
	_, rest, ok := strings.Cut(line, readySep)
	if !ok {
		_ = p.Stop()
		return nil, fmt.Errorf("sink: unexpected first line %q", line)
	}
	p.URL, _, _ = strings.Cut(strings.TrimSpace(rest), " ")
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return p, nil
}

// Pid is the child's process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Stop closes the child's stdin, which ends it, and waits for it (killing it after 5 s).
func (p *Process) Stop() error {
	_ = p.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		_ = p.cmd.Process.Kill()
		return <-done
	}
}
