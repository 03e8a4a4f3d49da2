package console

import (
	"net/http"
	"strings"
	"time"

	"webacq/internal/billing"
	"webacq/internal/model"
)

// ViaConsole names the console's actions in the activity log.
const ViaConsole = "console"

// record writes a console action to the workspace's usage and activity
// logs (via console, no key, no credits), so its audit trail shows what
// was done here beside the API's calls.
func (c *Console) record(w http.ResponseWriter, rq *request, endpoint, method, target string, err error) {
	call := c.call(w, rq, endpoint, method, target)
	status := http.StatusOK
	if err != nil {
		call.ErrorCode = model.ErrorCode(err)
		status = model.Status(call.ErrorCode)
	}
	if ferr := c.Biller.Finish(rq.r.Context(), call, 0, status); ferr != nil {
		c.Log.Error("console: record action", "workspace_id", rq.ws.ID, "err", ferr)
	}
}

// call is a console action as a billed call of the workspace.
func (c *Console) call(w http.ResponseWriter, rq *request, endpoint, method, target string) *billing.Call {
	id := w.Header().Get("X-Request-Id")
	if id == "" {
		id = newToken()[:24]
	}
	return &billing.Call{Principal: rq.p, Endpoint: endpoint, Via: ViaConsole, Method: method, Target: target,
		RequestID: id, Started: time.Now()}
}

type keysData struct {
	Keys []model.APIKey
	// NewKey is the plaintext of the key just created, shown this once.
	NewKey  string
	NewName string
	Name    string
}

func (c *Console) keysPage(w http.ResponseWriter, r *http.Request, rq *request) {
	c.renderKeys(w, r, rq, http.StatusOK, &keysData{}, "")
}

func (c *Console) renderKeys(w http.ResponseWriter, r *http.Request, rq *request, status int, d *keysData, msg string) {
	keys, err := c.Store.Keys(r.Context(), rq.ws.ID)
	if err != nil {
		c.fail(w, r, rq, err)
		return
	}
	// Newest first: the key just created is at the top.
	for i, j := 0, len(keys)-1; i < j; i, j = i+1, j-1 {
		keys[i], keys[j] = keys[j], keys[i]
	}
	d.Keys = keys
	p := rq.page("keys", "API keys", d)
	p.Error = msg
	c.render(w, r, status, "keys", p)
}

func (c *Console) createKey(w http.ResponseWriter, r *http.Request, rq *request) {
	name := strings.TrimSpace(r.PostForm.Get("name"))
	if name == "" || len(name) > 200 {
		c.renderKeys(w, r, rq, http.StatusBadRequest, &keysData{Name: name}, "Give the key a name (at most 200 characters), e.g. where it is used.")
		return
	}
	key, _, err := c.Store.CreateKey(r.Context(), rq.ws.ID, name)
	c.record(w, rq, "/api/v1/keys", http.MethodPost, "", err)
	if err != nil {
		c.fail(w, r, rq, err)
		return
	}
	c.renderKeys(w, r, rq, http.StatusOK, &keysData{NewKey: key, NewName: name}, "")
}

type revokeData struct {
	Key model.APIKey
}

// keyOf finds a live key of the workspace by its prefix.
func (c *Console) keyOf(r *http.Request, rq *request) (*model.APIKey, error) {
	keys, err := c.Store.Keys(r.Context(), rq.ws.ID)
	if err != nil {
		return nil, err
	}
	for i := range keys {
		if k := &keys[i]; k.Prefix == r.PathValue("prefix") && k.RevokedAt == nil {
			return k, nil
		}
	}
	return nil, model.Errorf(model.CodeNotFound, "key not found")
}

func (c *Console) revokeKeyPage(w http.ResponseWriter, r *http.Request, rq *request) {
	k, err := c.keyOf(r, rq)
	if err != nil {
		c.fail(w, r, rq, err)
		return
	}
	c.render(w, r, http.StatusOK, "revoke", rq.page("keys", "Revoke key", revokeData{Key: *k}))
}

func (c *Console) revokeKey(w http.ResponseWriter, r *http.Request, rq *request) {
	prefix := r.PathValue("prefix")
	err := c.Store.RevokeWorkspaceKey(r.Context(), rq.ws.ID, prefix)
	c.record(w, rq, "/api/v1/keys/{prefix}", http.MethodDelete, prefix, err)
	if err != nil {
		c.fail(w, r, rq, err)
		return
	}
	redirect(w, r, rq.base+"/keys", "key-revoked")
}
