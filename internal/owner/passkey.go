package owner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/cortex-mcp/cortex/internal/httpx"
	"github.com/cortex-mcp/cortex/internal/store"
)

// webUser is the owner as the WebAuthn library sees them.
type webUser struct {
	handle []byte
	creds  []webauthn.Credential
}

func (u *webUser) WebAuthnID() []byte                         { return u.handle }
func (u *webUser) WebAuthnName() string                       { return "owner" }
func (u *webUser) WebAuthnDisplayName() string                { return "cortex owner" }
func (u *webUser) WebAuthnCredentials() []webauthn.Credential { return u.creds }

// loadUser reads the owner and their passkeys.
func (o *Owner) loadUser(ctx context.Context) (*webUser, error) {
	own, err := o.st.Owner(ctx)
	if errors.Is(err, store.ErrNoOwner) {
		return nil, errNoOwner
	}
	if err != nil {
		return nil, err
	}
	keys, err := o.st.Passkeys(ctx)
	if err != nil {
		return nil, err
	}
	u := &webUser{handle: own.UserHandle}
	for _, k := range keys {
		c := webauthn.Credential{
			ID:                k.CredentialID,
			PublicKey:         k.PublicKey,
			AttestationType:   k.AttestationType,
			AttestationFormat: k.AttestationFormat,
			Flags:             webauthn.NewCredentialFlags(protocol.AuthenticatorFlags(k.Flags)),
			Authenticator: webauthn.Authenticator{
				AAGUID:     k.AAGUID,
				SignCount:  k.SignCount,
				Attachment: protocol.AuthenticatorAttachment(k.Attachment),
			},
		}
		for _, t := range k.Transports {
			c.Transport = append(c.Transport, protocol.AuthenticatorTransport(t))
		}
		u.creds = append(u.creds, c)
	}
	return u, nil
}

// beginResponse is what a begin route returns to the page script.
type beginResponse struct {
	Ceremony  string `json:"ceremony"`
	PublicKey any    `json:"publicKey"`
}

// finishRequest is what the page script posts to a finish route.
type finishRequest struct {
	Ceremony   string          `json:"ceremony"`
	Credential json.RawMessage `json:"credential"`
	Return     string          `json:"return"`
}

// finish is an opened WebAuthn finish request.
type finish struct {
	req  finishRequest
	c    ceremony
	user *webUser
	data webauthn.SessionData // the ceremony's, ready for the library
}

// openFinish runs what every WebAuthn finish starts with, once the form
// guard has checked the CSRF token: passkeys on, the request body, the
// sealed ceremony of this kind (bound to this browser and not expired), the
// browser's credential read by parse, and the owner with their passkeys.
func (o *Owner) openFinish(r *http.Request, kind ceremonyKind, parse func(credential []byte) error) (finish, error) {
	var f finish
	if o.wa == nil {
		return f, errNoPasskeys
	}
	if err := readJSON(r, &f.req); err != nil {
		return f, err
	}
	var ok bool
	if f.c, ok = o.ceremony.open(f.req.Ceremony, kind, r.Header.Get(csrfHeader), o.now()); !ok {
		return f, errCeremony
	}
	if err := parse(f.req.Credential); err != nil {
		return f, errPasskey.With(err)
	}
	var err error
	if f.user, err = o.loadUser(r.Context()); err != nil {
		return f, err
	}
	f.data = f.c.Data
	f.data.Expires = time.Time{} // expiry was checked on opening the seal, on the injected clock
	return f, nil
}

// spend marks f's ceremony used; a second finish of it is refused.
func (o *Owner) spend(f finish) error {
	if !o.ceremony.spend(f.c, o.now()) {
		return errCeremony.With(errors.New("ceremony already used"))
	}
	return nil
}

func readJSON(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(v); err != nil {
		return errBadRequest.With(err)
	}
	return nil
}

func (o *Owner) passkeyLoginBegin(w http.ResponseWriter, r *http.Request) error {
	if o.wa == nil {
		return errNoPasskeys
	}
	if ok, wait := o.passkey.Take(httpx.SourceKey(r)); !ok {
		return rateLimited(wait)
	}
	assertion, data, err := o.wa.BeginDiscoverableLogin(webauthn.WithUserVerification(protocol.VerificationRequired))
	if err != nil {
		return err
	}
	sealed, err := o.ceremony.seal(ceremony{Kind: kindLogin, Bind: bindHash(r.Header.Get(csrfHeader)),
		Expires: o.now().Add(ceremonyTTL).UnixNano(), Data: *data})
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, beginResponse{Ceremony: sealed, PublicKey: assertion.Response})
	return nil
}

func (o *Owner) passkeyLoginFinish(w http.ResponseWriter, r *http.Request) error {
	var parsed *protocol.ParsedCredentialAssertionData
	f, err := o.openFinish(r, kindLogin, func(credential []byte) (err error) {
		parsed, err = protocol.ParseCredentialRequestResponseBytes(credential)
		return err
	})
	if err != nil {
		return err
	}
	_, cred, err := o.wa.ValidatePasskeyLogin(func(rawID, userHandle []byte) (webauthn.User, error) {
		if !bytes.Equal(userHandle, f.user.handle) {
			return nil, errors.New("unknown user handle")
		}
		return f.user, nil
	}, f.data, parsed)
	if err != nil {
		return errPasskey.With(err)
	}
	if err := o.spend(f); err != nil {
		return err
	}
	if cred.Authenticator.CloneWarning {
		// The signature counter went backwards: two copies of this key may
		// exist. Refuse, and leave the stored counter as it was.
		o.log.Warn("passkey refused: its signature counter went backwards, it may have been cloned",
			"source", httpx.SourceKey(r).String())
		return errPasskey.With(errors.New("clone warning"))
	}
	if err := o.st.RecordPasskeyLogin(r.Context(), cred.ID, cred.Authenticator.SignCount, byte(cred.Flags.ProtocolValue())); err != nil {
		if errors.Is(err, store.ErrPasskeyNotFound) {
			return errPasskey.With(err)
		}
		return err
	}
	if err := o.startSession(w, r, "passkey"); err != nil {
		return err
	}
	ret, ok := SafeReturnPath(f.req.Return)
	if !ok {
		ret = "/login"
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]string{"redirect": ret})
	return nil
}
