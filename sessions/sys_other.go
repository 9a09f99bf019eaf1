//go:build !unix

package sessions

import "errors"

var errSyncUnsupported = errors.New("sync unsupported")

func linkUnsupported(error) bool { return false }
