package owner

import (
	"errors"
	"net/http"
	"strings"
	"time"
	"unicode"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/cortex-mcp/cortex/internal/httpx"
	"github.com/cortex-mcp/cortex/internal/store"
)

// The enrolment page is reached by a link from `cortex admin`,
// <public URL>/enrol#<secret>. The secret sits in the fragment, which a
// browser never sends, so GET /enrol carries nothing secret and access logs
// and proxies never see it; the page script reads it, removes it from the
// address bar and posts it in a request body together with a current TOTP
// code. The link alone is useless without the code, and it is consumed in
// the same transaction that stores the passkey.

func (o *Owner) enrolPage(w http.ResponseWriter, r *http.Request) error {
	if o.wa == nil {
		return errNoPasskeys
	}
	o.pages.Render(w, http.StatusOK, "enrol.html", enrolData{CSRF: o.CSRFToken(w, r)})
	return nil
}

type enrolBeginRequest struct {
	Link string `json:"link"`
	Code string `json:"code"`
	Name string `json:"name"`
}

// passkeyName cleans the name the owner gave a passkey; empty becomes a
// default.
func passkeyName(s string, now time.Time) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, strings.TrimSpace(s))
	if r := []rune(s); len(r) > 64 {
		s = string(r[:64])
	}
	if s == "" {
		s = "passkey added " + now.UTC().Format("2006-01-02")
	}
	return s
}

func (o *Owner) enrolBegin(w http.ResponseWriter, r *http.Request) error {
	if o.wa == nil {
		return errNoPasskeys
	}
	var req enrolBeginRequest
	if err := readJSON(r, &req); err != nil {
		return err
	}
	src := httpx.SourceKey(r)
	// The passkey budget pays for the link lookup, so strangers without a
	// link never reach the shared code budget.
	if ok, wait := o.passkey.Take(src); !ok {
		return rateLimited(wait)
	}
	if len(req.Link) != 43 {
		return errBadLink
	}
	linkHash := hashToken("enrol:" + req.Link)
	valid, err := o.st.EnrolLinkValid(r.Context(), linkHash)
	if err != nil {
		return err
	}
	if !valid {
		return errBadLink
	}
	if !validTOTPFormat(req.Code) {
		return errBadCode
	}
	if err := o.checkTOTP(r, src, req.Code); err != nil {
		return err
	}
	user, err := o.loadUser(r.Context())
	if err != nil {
		return err
	}
	var exclude []protocol.CredentialDescriptor
	for _, c := range user.creds {
		exclude = append(exclude, c.Descriptor())
	}
	creation, data, err := o.wa.BeginRegistration(user,
		webauthn.WithAuthenticatorSelection(protocol.AuthenticatorSelection{
			ResidentKey:      protocol.ResidentKeyRequirementRequired,
			UserVerification: protocol.VerificationRequired,
		}),
		webauthn.WithResidentKeyRequirement(protocol.ResidentKeyRequirementRequired),
		webauthn.WithExclusions(exclude),
		webauthn.WithConveyancePreference(protocol.PreferNoAttestation),
	)
	if err != nil {
		return err
	}
	now := o.now()
	sealed, err := o.ceremony.seal(ceremony{Kind: kindEnrol, Bind: bindHash(r.Header.Get(csrfHeader)),
		Expires: now.Add(ceremonyTTL).UnixNano(), Data: *data, LinkHash: linkHash, Name: passkeyName(req.Name, now)})
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, beginResponse{Ceremony: sealed, PublicKey: creation.Response})
	return nil
}

func (o *Owner) enrolFinish(w http.ResponseWriter, r *http.Request) error {
	var parsed *protocol.ParsedCredentialCreationData
	f, err := o.openFinish(r, kindEnrol, func(credential []byte) (err error) {
		parsed, err = protocol.ParseCredentialCreationResponseBytes(credential)
		return err
	})
	if err != nil {
		return err
	}
	cred, err := o.wa.CreateCredential(f.user, f.data, parsed)
	if err != nil {
		return errPasskey.With(err)
	}
	if err := o.spend(f); err != nil {
		return err
	}
	pk := store.Passkey{
		CredentialID:      cred.ID,
		PublicKey:         cred.PublicKey,
		SignCount:         cred.Authenticator.SignCount,
		Flags:             byte(cred.Flags.ProtocolValue()),
		AAGUID:            cred.Authenticator.AAGUID,
		AttestationType:   cred.AttestationType,
		AttestationFormat: cred.AttestationFormat,
		Attachment:        string(cred.Authenticator.Attachment),
		Name:              f.c.Name,
	}
	for _, t := range cred.Transport {
		pk.Transports = append(pk.Transports, string(t))
	}
	added, err := o.st.AddPasskeyWithLink(r.Context(), f.c.LinkHash, pk)
	if errors.Is(err, store.ErrEnrolLinkInvalid) {
		return errBadLink
	}
	if err != nil {
		return err
	}
	o.log.Info("passkey enrolled", "id", added.ID, "source", httpx.SourceKey(r).String())
	httpx.WriteJSON(w, http.StatusOK, map[string]string{"redirect": "/login", "name": added.Name})
	return nil
}
