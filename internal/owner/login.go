package owner

import (
	"errors"
	"net/http"
	"net/netip"

	"github.com/cortex-mcp/cortex/internal/httpx"
	"github.com/cortex-mcp/cortex/internal/store"
)

func (o *Owner) loginPage(w http.ResponseWriter, r *http.Request) error {
	ret, _ := SafeReturnPath(r.URL.Query().Get("return"))
	// A signed-in owner is sent straight on, unless the page asked for a
	// fresh sign-in (see ReauthURL).
	if ret != "" && ret != "/login" && !reauth(r) {
		if _, ok := o.Session(r); ok {
			http.Redirect(w, r, ret, http.StatusSeeOther) // #nosec G710 -- ret passed SafeReturnPath: a path on this server only
			return nil
		}
	}
	o.renderLogin(w, r, http.StatusOK, "")
	return nil
}

// renderLogin shows the login page (or, when signed in, the signed-in page)
// with an optional error message.
func (o *Owner) renderLogin(w http.ResponseWriter, r *http.Request, status int, msg string) {
	ret := r.URL.Query().Get("return")
	if r.Method == http.MethodPost {
		ret = r.PostFormValue("return")
	}
	ret, _ = SafeReturnPath(ret)
	d := loginData{
		CSRF:     o.CSRFToken(w, r),
		Return:   ret,
		Passkeys: o.wa != nil,
		Error:    msg,
	}
	if s, ok := o.Session(r); ok && msg == "" {
		if reauth(r) {
			d.Reauth = true
		} else {
			d.SignedIn, d.Method = true, s.Method
		}
	}
	o.pages.Render(w, status, "login.html", d)
}

// reauth reports whether the login page was asked to offer sign-in to an
// owner who is already signed in.
func reauth(r *http.Request) bool { return r.URL.Query().Get("reauth") == "1" }

// afterLogin sends the browser on: to the return path if it was given one,
// else back to the login page, which now says "signed in".
func afterLogin(r *http.Request) string {
	if p, ok := SafeReturnPath(r.PostFormValue("return")); ok {
		return p
	}
	return "/login"
}

func (o *Owner) loginTOTP(w http.ResponseWriter, r *http.Request) error {
	code := r.PostFormValue("code")
	if !validTOTPFormat(code) {
		return errBadCode.With(errors.New("not six digits"))
	}
	if err := o.checkTOTP(r, httpx.SourceKey(r), code); err != nil {
		return err
	}
	if err := o.startSession(w, r, "totp"); err != nil {
		return err
	}
	http.Redirect(w, r, afterLogin(r), http.StatusSeeOther) // #nosec G710 -- afterLogin is a SafeReturnPath path on this server or /login
	return nil
}

// checkTOTP spends one code attempt of r (from src) and checks code against
// the owner's secret. A code is accepted once per time step, ever; every
// wrong or replayed code counts towards the lock, and an attempt refused by
// its budget never reaches the check, so it does not. A browser on its own
// device lane may still use TOTP while it is locked (see device.go).
func (o *Owner) checkTOTP(r *http.Request, src netip.Prefix, code string) error {
	ctx := r.Context()
	device, err := o.spendCode(r, src, true)
	if err != nil {
		return err
	}
	own, err := o.st.Owner(ctx)
	if errors.Is(err, store.ErrNoOwner) {
		return errNoOwner
	}
	if err != nil {
		return err
	}
	if device == "" && !own.TOTPLocked.IsZero() {
		return errTOTPLocked
	}
	step, ok := matchTOTP(own.TOTPSecret, code, o.now())
	if ok {
		if device != "" {
			ok, err = o.st.UseTOTPStepOnDevice(ctx, step)
		} else {
			ok, err = o.st.UseTOTPStep(ctx, step)
		}
		if err != nil {
			return err
		}
	}
	if ok {
		if device != "" {
			o.devices.reset(device)
		}
		return nil
	}
	_, locked, err := o.st.RecordTOTPFailure(ctx, o.budgets.TOTPLockAfter)
	if err != nil {
		return err
	}
	if device != "" && !o.devices.fail(device) {
		return errBadCode // the device's own lane is still open
	}
	if locked {
		return errTOTPLocked
	}
	return errBadCode
}

func (o *Owner) loginRecovery(w http.ResponseWriter, r *http.Request) error {
	hash, ok := hashRecoveryCode(r.PostFormValue("code"))
	if !ok {
		return errBadRecovery.With(errors.New("not a recovery code"))
	}
	if _, err := o.spendCode(r, httpx.SourceKey(r), false); err != nil {
		return err
	}
	used, err := o.st.UseRecoveryCode(r.Context(), hash)
	if err != nil {
		return err
	}
	if !used {
		return errBadRecovery
	}
	if err := o.startSession(w, r, "recovery"); err != nil {
		return err
	}
	left, err := o.st.RecoveryCodesLeft(r.Context())
	if err == nil && left <= 3 {
		o.log.Warn("few recovery codes left; run cortex admin recovery regenerate", "left", left)
	}
	http.Redirect(w, r, afterLogin(r), http.StatusSeeOther) // #nosec G710 -- afterLogin is a SafeReturnPath path on this server or /login
	return nil
}
