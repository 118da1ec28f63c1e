package repo

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/fdl-formats/fdl-formats/store"
)

// restoreOnly ends the hint of a check whose unverifiable files the store
// did not serve as they are: other findings may still name files to
// restore.
const restoreOnly = "a file is to restore only where a finding says it is missing or damaged; see the report (--json) for every finding"

// serverHint is the hint of a check whose first unverifiable finding the
// server caused, not the file it names: the file may be there and whole,
// so restoring it is no cure. The cause's type decides (the store's typed
// errors, reached with errors.Is and errors.As through the finding's
// cause), here alone: the finding's text names the cause already, and the
// hint said to restore the file all the same. "" when the cause is none of
// these, or unknown (a finding without one).
func (e *CheckError) serverHint() string {
	cause := e.First.cause
	if cause == nil {
		return ""
	}
	var (
		stall  *store.StallError
		failed *store.ServerError
	)
	switch {
	case errors.Is(cause, store.ErrAccessDenied) && len(e.Denied) > 0:
		return e.deniedHint()
	case errors.Is(cause, store.ErrEncoded):
		return "the web server sends files with a Content-Encoding though none was asked for (the first finding names them): readers get the encoded bytes, and the files may be there and whole; serve the repository's files as stored: on nginx `gzip off` and `gzip_static off` (never `always`) for its location, on a CDN or proxy compression off for its path (docs/remote.md, Web sites); " + restoreOnly
	case errors.Is(cause, store.ErrSizeDisagrees):
		return "the server's HEAD gives a file another size (Content-Length) than its GETs deliver, or the file changed while read (the first finding names it and both sizes): it may be there and whole; fix the server (a proxy, cache or application answering HEAD otherwise than GET), as DuckDB sizes a file by its HEAD, or run again once the file no longer changes; " + restoreOnly
	case errors.Is(cause, store.ErrETagChanged), errors.Is(cause, store.ErrLastModifiedChanged):
		return "the server answers a file's requests from different copies, or the file changed while read (its ETag or Last-Modified differs between its HEAD, its ranged GET and its download; the first finding names it and both values): DuckDB's readers fail on it or get another copy, though it may be there and whole; make the server answer every request from one copy (a CDN edge or replica serving an older one: purge or fix it), or run again once the file no longer changes; " + restoreOnly
	case errors.As(cause, &failed):
		return fmt.Sprintf("the server failed to answer for a file (%d %s, every attempt; the first finding names it): it may be there and whole; run again later, and if it fails again look at the server's logs (an overloaded server, a proxy or CDN whose origin fails); %s", failed.Status, http.StatusText(failed.Status), restoreOnly)
	case errors.Is(cause, store.ErrPage):
		return "the web site answers with an HTML page where a file should be (200 and a page, as a single-page app's fallback answers every path the site does not hold: Netlify, Cloudflare Pages, Firebase, nginx `try_files $uri /index.html`; the first finding names the file): the site does not serve it, though the repository's own copy may be whole; publish the repository's files to the site whole (a deploy may leave out files, e.g. past the host's file size limit) and keep its paths out of the fallback (docs/remote.md, Web sites); see the report (--json) for every finding"
	case errors.As(cause, &stall):
		return fmt.Sprintf("the server stopped sending a file half-way (no byte for %v; first: %s): it may be there and whole; run again when the server answers, or give a slow server more time (--stall-timeout, $FDL_FORMATS_STALL_TIMEOUT; docs/remote.md, Servers that stop sending); %s", stall.After, stall.URL, restoreOnly)
	}
	return ""
}
