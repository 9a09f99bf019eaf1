package server

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/jsonrpc"
)

// Limits of a listening daemon (see docs/security.md).
const (
	// DefaultMaxBodyBytes bounds one message body: far above a context
	// call's params and a long conversation sent for compaction, far below
	// what would let one peer take the machine's memory.
	DefaultMaxBodyBytes = 32 << 20
	// DefaultMaxConns caps concurrent connections of one daemon.
	DefaultMaxConns = 64
	// DefaultIdleTimeout closes a connection idle this long.
	DefaultIdleTimeout = 10 * time.Minute
)

// CodeUnauthorized answers initialize on TCP without the daemon's token.
const CodeUnauthorized = -31010

func (s *Server) maxBody() int {
	if s.opts.MaxBodyBytes > 0 {
		return s.opts.MaxBodyBytes
	}
	return DefaultMaxBodyBytes
}

// listenPrivate listens; a unix socket is made mode 0600 (listenMasked
// creates it so where the system allows).
func listenPrivate(network, addr string) (net.Listener, error) {
	if network != "unix" {
		return net.Listen(network, addr)
	}
	ln, err := listenMasked(addr)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(addr, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

// TokenFile is the path of the token file of a TCP daemon on port, in
// dir (empty: the user's cache directory, ctxd/).
func TokenFile(dir string, port int) (string, error) {
	if dir == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("token file: %w", err)
		}
		dir = filepath.Join(c, "ctxd")
	}
	return filepath.Join(dir, "tcp-"+strconv.Itoa(port)+".token"), nil
}

// writeToken makes the daemon's random token and writes it, mode 0600, to
// its token file, as Jupyter does: a local process that cannot read the
// file cannot use the daemon.
func (s *Server) writeToken(addr net.Addr) (string, string, error) {
	ta, ok := addr.(*net.TCPAddr)
	if !ok {
		return "", "", fmt.Errorf("not a TCP address: %v", addr)
	}
	file, err := TokenFile(s.opts.TokenDir, ta.Port)
	if err != nil {
		return "", "", err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return "", "", fmt.Errorf("token file: %w", err)
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", err
	}
	tok := hex.EncodeToString(b[:])
	tmp := file + ".tmp"
	os.Remove(tmp)
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return "", "", fmt.Errorf("token file: %w", err)
	}
	_, werr := f.WriteString(tok + "\n")
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		return "", "", fmt.Errorf("token file: %w", err)
	}
	if err := os.Rename(tmp, file); err != nil {
		return "", "", fmt.Errorf("token file: %w", err)
	}
	return tok, file, nil
}

// checkToken checks initialize's token against the connection's policy.
func (cl *client) checkToken(token string) error {
	if t := cl.policy.token; t != "" && subtle.ConstantTimeCompare([]byte(token), []byte(t)) != 1 {
		return jsonrpc.Errorf(CodeUnauthorized, "initialize: this daemon serves TCP and requires its token: send \"token\" (the content of the daemon's token file, see docs/security.md)")
	}
	return nil
}

// checkRoot checks initialize's root against the allowed roots.
func (cl *client) checkRoot(root string) error {
	pol := cl.policy
	if pol.allowedRoots == nil {
		return nil
	}
	for _, a := range pol.allowedRoots {
		if rel, err := filepath.Rel(a, root); err == nil && rel != ".." && !filepath.IsAbs(rel) && (rel == "." || !startsDotDot(rel)) {
			return nil
		}
	}
	return fmt.Errorf("root %s is not one of the workspaces this daemon was started for (%v): %w", root, pol.allowedRoots, ctxd.ErrOutsideRoot)
}

func startsDotDot(rel string) bool {
	return len(rel) >= 3 && rel[:3] == ".."+string(filepath.Separator)
}

// idleConn closes a connection that sent nothing for timeout while none
// of its requests ran.
type idleConn struct {
	net.Conn
	timeout time.Duration
	busy    func() bool
}

func (c *idleConn) Read(p []byte) (int, error) {
	for {
		if err := c.Conn.SetReadDeadline(time.Now().Add(c.timeout)); err != nil {
			return 0, err
		}
		n, err := c.Conn.Read(p)
		var ne net.Error
		if err != nil && errors.As(err, &ne) && ne.Timeout() && n == 0 && c.busy() {
			continue // waiting for our own answer is not idleness
		}
		return n, err
	}
}
