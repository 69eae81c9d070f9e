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

// readyPrefix starts the line that Main writes once it is listening; Start takes the URL
// after readySep.
const (
	readyPrefix = "bulksink" + readySep
	readySep    = ": listening on "
)

// Main runs the sink as a command with the command-line arguments args: it listens, writes
// "bulksink: listening on http://host:port (count mode)" as its first line on stdout, and
// serves until ctx ends or, with -stdin, until stdin is closed (so that a child process ends
// with its parent).
func Main(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("bulksink", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:0", "address to listen on")
	count := fs.String("count", "lines", `how documents are counted: "lines" (gunzip the body and count its lines, two per document) or "header" (trust X-Elastic-Event-Count, do not decompress)`)
	version := fs.String("version", "9.1.0", "Elasticsearch version to announce")
	watchStdin := fs.Bool("stdin", false, "exit when stdin is closed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	mode, err := ParseCountMode(*count)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: NewHandler(mode, *version), ReadHeaderTimeout: 10 * time.Second}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if *watchStdin {
		go func() {
			_, _ = io.Copy(io.Discard, stdin)
			cancel()
		}()
	}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if _, err := fmt.Fprintf(stdout, "%shttp://%s (count %s)\n", readyPrefix, ln.Addr(), mode); err != nil {
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
