package httpapi_test

import (
	"strings"
	"testing"

	"webacq/internal/model"
	"webacq/internal/store/storetest"
)

// TestNotEntitledNamesTheCommand: the 403 of a workspace without
// monitoring names the command that grants it to an existing workspace.
func TestNotEntitledNamesTheCommand(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newMonitorEnv(t, dialect)
		if err := e.store.SetMonitoring(ctx, e.ws.ID, false); err != nil {
			t.Fatal(err)
		}
		a := e.send("POST", "/api/v1/monitor/register", `{"url":"http://127.0.0.1:1/"}`)
		wantError(t, a, 403, model.CodeForbidden)
		if !strings.Contains(a.Error, "webacq workspace update NAME --monitoring") {
			t.Errorf("403 says %q, want the workspace update command", a.Error)
		}
	})
}
