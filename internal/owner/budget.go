package owner

import "github.com/cortex-mcp/cortex/internal/httpx"

// Budgets sets how many attempts the login routes accept. Zero fields take
// the defaults of DefaultBudgets.
type Budgets struct {
	// Code attempts (TOTP and recovery codes, on login and enrolment) spend
	// from the source's bucket first, then from the shared global one; a
	// browser with a device cookie spends its own bucket instead (below).
	CodeSourceBurst     int
	CodeSourcePerMinute float64
	CodeGlobalBurst     int
	CodeGlobalPerMinute float64

	// Passkey ceremonies (login and enrolment begin) spend only from the
	// source's bucket: a passkey cannot be guessed, so the shared code
	// budget must never stand in the owner's way.
	PasskeySourceBurst     int
	PasskeySourcePerMinute float64

	// MaxSources bounds how many sources each budget remembers (LRU).
	MaxSources int

	// A browser the owner has signed in from carries a device cookie. Its
	// code attempts spend only its own budget, instead of the source's and
	// the global one that strangers can empty; and while TOTP is locked it
	// may still sign in with TOTP, until DeviceLockAfter consecutive wrong
	// codes close its lane (until it signs in some other way, or cortex
	// restarts). MaxDevices bounds how many devices are remembered (LRU;
	// only valid cookies, which only sign-ins mint, get an entry).
	DeviceBurst     int
	DevicePerMinute float64
	DeviceLockAfter int
	MaxDevices      int

	// TOTPLockAfter consecutive wrong TOTP codes lock TOTP until a passkey
	// or recovery-code login, or `cortex admin unlock-totp`.
	TOTPLockAfter int
}

// DefaultBudgets are the numbers cortex runs with.
var DefaultBudgets = Budgets{
	CodeSourceBurst:        5,
	CodeSourcePerMinute:    2,
	CodeGlobalBurst:        10,
	CodeGlobalPerMinute:    10,
	PasskeySourceBurst:     10,
	PasskeySourcePerMinute: 10,
	MaxSources:             4096,
	DeviceBurst:            5,
	DevicePerMinute:        2,
	DeviceLockAfter:        10,
	MaxDevices:             64,
	TOTPLockAfter:          50,
}

// withDefaults gives each field left zero or negative its default
// (TestBudgetsDefaults checks that none is forgotten).
func (b Budgets) withDefaults() Budgets {
	d := DefaultBudgets
	b.CodeSourceBurst = httpx.Or(b.CodeSourceBurst, d.CodeSourceBurst)
	b.CodeSourcePerMinute = httpx.Or(b.CodeSourcePerMinute, d.CodeSourcePerMinute)
	b.CodeGlobalBurst = httpx.Or(b.CodeGlobalBurst, d.CodeGlobalBurst)
	b.CodeGlobalPerMinute = httpx.Or(b.CodeGlobalPerMinute, d.CodeGlobalPerMinute)
	b.PasskeySourceBurst = httpx.Or(b.PasskeySourceBurst, d.PasskeySourceBurst)
	b.PasskeySourcePerMinute = httpx.Or(b.PasskeySourcePerMinute, d.PasskeySourcePerMinute)
	b.MaxSources = httpx.Or(b.MaxSources, d.MaxSources)
	b.DeviceBurst = httpx.Or(b.DeviceBurst, d.DeviceBurst)
	b.DevicePerMinute = httpx.Or(b.DevicePerMinute, d.DevicePerMinute)
	b.DeviceLockAfter = httpx.Or(b.DeviceLockAfter, d.DeviceLockAfter)
	b.MaxDevices = httpx.Or(b.MaxDevices, d.MaxDevices)
	b.TOTPLockAfter = httpx.Or(b.TOTPLockAfter, d.TOTPLockAfter)
	return b
}

// rate is the httpx shape of a burst and a per-minute refill.
func rate(burst int, perMinute float64) httpx.Rate {
	return httpx.Rate{Burst: burst, PerMinute: perMinute}
}
