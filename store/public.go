package store

import "errors"

// unavailableDetail is what callers see of a backend failure; the full error
// goes to the log, since it may name hosts or paths.
const unavailableDetail = UnavailableDetail

// UnavailableDetail is the Detail of a source failure whose backend gives
// no public explanation, for pages that say what to do in their own words.
const UnavailableDetail = "the skill source is temporarily unavailable; try again, and if it persists ask the operator to check the server log"

// PublicError is implemented by backend errors whose explanation is safe
// to show callers: it names no host, path or credential, and says what
// is wrong with the source ("no branch … in the repository"). Nothing
// else of a backend's failure is shown: an error that does not implement
// it, or whose Public is empty, reaches callers as "temporarily
// unavailable" and the log in full. Backends mark the errors they make
// public one by one; none is public by default.
type PublicError interface {
	error
	Public() string
}

// publicDetail is what callers see of a source's failure: its public
// explanation, if the backend gives one, else unavailableDetail.
func publicDetail(err error) string {
	var pe PublicError
	if errors.As(err, &pe) && pe.Public() != "" {
		return pe.Public()
	}
	return unavailableDetail
}
