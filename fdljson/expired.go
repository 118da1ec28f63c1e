package fdljson

import "time"

// Reasons a version is taken out; fdl.json readers treat both the same way
// (the version is skipped), but reports name them.
const (
	ReasonExpired   = "expired"   // fell out of retention (the default)
	ReasonWithdrawn = "withdrawn" // withdrawn by its publisher
)

// Expired is expired.json. The FDL pages define only "reason"; other fields
// are ignored, except an optional RFC 3339 "expired_at" that is kept.
type Expired struct {
	Reason    string    `json:"reason"`
	ExpiredAt time.Time `json:"expired_at,omitzero"`
}

// ParseExpired parses expired.json. An empty object means reason "expired".
func ParseExpired(file string, data []byte) (*Expired, error) {
	o, err := decodeObject(file, "", data)
	if err != nil {
		return nil, err
	}
	e := &Expired{Reason: ReasonExpired}
	if _, err := o.opt("reason", &e.Reason); err != nil {
		return nil, err
	}
	if e.Reason == "" {
		e.Reason = ReasonExpired
	}
	var at string
	if ok, err := o.opt("expired_at", &at); err != nil {
		return nil, err
	} else if ok {
		t, err := parseISOTime(at)
		if err != nil {
			return nil, fieldErr(file, "expired_at", "%v", err)
		}
		e.ExpiredAt = t
	}
	return e, nil
}
