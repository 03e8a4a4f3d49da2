package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"webacq/internal/billing"
	"webacq/internal/console"
	"webacq/internal/httpapi"
	"webacq/internal/monitor"
	"webacq/internal/store"
)

type (
	userCmd struct {
		Create   userCreateCmd   `cmd:"" help:"Create a console account; its password is read from stdin."`
		Grant    userGrantCmd    `cmd:"" help:"Let a console account act on a workspace, as owner or member."`
		List     struct{}        `cmd:"" help:"List the console accounts with their workspaces and roles."`
		Remove   userEmailCmd    `cmd:"" help:"Remove a console account, its grants and its sessions."`
		Revoke   userRevokeCmd   `cmd:"" help:"Take a workspace away from a console account."`
		Password userPasswordCmd `cmd:"" help:"Set a console account's password (read from stdin) and end its sessions."`
	}
	userEmailCmd struct {
		Email string `required:"" help:"Email address of the account."`
	}
	userRevokeCmd struct {
		Email     string `required:"" help:"Email address of the account."`
		Workspace string `required:"" help:"Workspace name."`
	}
	userPasswordCmd struct {
		Email         string `required:"" help:"Email address of the account."`
		PasswordStdin bool   `name:"password-stdin" required:"" help:"Read the password from the first line of stdin (never from the command line)."`
	}
	userCreateCmd struct {
		Email         string `required:"" help:"Email address the account signs in with."`
		PasswordStdin bool   `name:"password-stdin" required:"" help:"Read the password from the first line of stdin (never from the command line)."`
	}
	userGrantCmd struct {
		Email     string `required:"" help:"Email address of the account."`
		Workspace string `required:"" help:"Workspace name."`
		Role      string `default:"owner" enum:"owner,member" help:"owner: keys, alerts and everything a member does; member: reads the workspace and runs its monitors."`
	}
)

// user runs the `webacq user` commands.
func (m *Main) user(ctx context.Context, command string, c *userCmd) error {
	switch command {
	case "user create":
		email, err := console.NormalizeEmail(c.Create.Email)
		if err != nil {
			return err
		}
		password, err := readPassword(command)
		if err != nil {
			return err
		}
		if _, err := m.store.CreateUser(ctx, email, console.HashPassword(password)); err != nil {
			return err
		}
		fmt.Fprintf(m.Stderr, "created console user %s; grant it a workspace with `webacq user grant --email %s --workspace NAME`\n", email, email)
		return nil
	case "user grant":
		email, err := console.NormalizeEmail(c.Grant.Email)
		if err != nil {
			return err
		}
		u, err := m.store.UserByEmail(ctx, email)
		if err != nil {
			return err
		}
		w, err := m.store.WorkspaceByName(ctx, c.Grant.Workspace)
		if err != nil {
			return err
		}
		if err := m.store.GrantWorkspace(ctx, u.ID, w.ID, c.Grant.Role); err != nil {
			return err
		}
		fmt.Fprintf(m.Stderr, "%s may now use workspace %q in the console as %s\n", email, w.Name, c.Grant.Role)
		return nil
	case "user list":
		return m.listUsers(ctx)
	case "user remove":
		u, err := m.userByEmail(ctx, c.Remove.Email)
		if err != nil {
			return err
		}
		if err := m.store.DeleteUser(ctx, u.ID); err != nil {
			return err
		}
		fmt.Fprintf(m.Stderr, "removed console user %s; its sessions ended\n", u.Email)
		return nil
	case "user revoke":
		u, err := m.userByEmail(ctx, c.Revoke.Email)
		if err != nil {
			return err
		}
		w, err := m.store.WorkspaceByName(ctx, c.Revoke.Workspace)
		if err != nil {
			return err
		}
		if err := m.store.RevokeWorkspace(ctx, u.ID, w.ID); err != nil {
			return err
		}
		fmt.Fprintf(m.Stderr, "%s may no longer use workspace %q\n", u.Email, w.Name)
		return nil
	case "user password":
		u, err := m.userByEmail(ctx, c.Password.Email)
		if err != nil {
			return err
		}
		password, err := readPassword(command)
		if err != nil {
			return err
		}
		if err := m.store.SetPassword(ctx, u.ID, console.HashPassword(password), ""); err != nil {
			return err
		}
		fmt.Fprintf(m.Stderr, "set the password of %s; its sessions ended\n", u.Email)
		return nil
	}
	return fmt.Errorf("unknown command %q", command)
}

// readPassword reads a new password from the first line of stdin and checks
// that it may be used.
func readPassword(command string) (string, error) {
	line, err := bufio.NewReader(os.Stdin).ReadString('\n')
	if err != nil && line == "" {
		return "", fmt.Errorf("%s: no password on stdin (echo it, or pipe it from a password manager)", command)
	}
	password := strings.TrimRight(line, "\r\n")
	return password, console.CheckNewPassword(password)
}

// userByEmail finds a console account by an email as typed.
func (m *Main) userByEmail(ctx context.Context, email string) (*store.User, error) {
	email, err := console.NormalizeEmail(email)
	if err != nil {
		return nil, err
	}
	return m.store.UserByEmail(ctx, email)
}

// listUsers prints one line per console account: email, creation date and
// its workspaces with roles.
func (m *Main) listUsers(ctx context.Context) error {
	users, err := m.store.Users(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(m.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "EMAIL\tCREATED\tWORKSPACES")
	for _, u := range users {
		gs, err := m.store.UserWorkspaces(ctx, u.ID)
		if err != nil {
			return err
		}
		ws := make([]string, len(gs))
		for i, g := range gs {
			ws[i] = g.Name + " (" + g.Role + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", u.Email, u.CreatedAt.Format(time.DateOnly), strings.Join(ws, ", "))
	}
	return tw.Flush()
}

// setupLinkLifetime is how long the first serve's setup link works.
const setupLinkLifetime = 24 * time.Hour

// printSetupLink makes a one-time link that creates the first console
// account, owner of workspace "default", and prints it once: the first
// serve on an empty database calls it.
func (m *Main) printSetupLink(ctx context.Context) error {
	w, err := m.store.WorkspaceByName(ctx, "default")
	if err != nil {
		return err
	}
	token, hash := console.NewSetupLink()
	if err := m.store.CreateSetupLink(ctx, hash, w.ID, m.store.Now().Add(setupLinkLifetime)); err != nil {
		return err
	}
	fmt.Fprintln(m.Stderr, "console: create the first account (owner of \"default\") within 24 hours at")
	fmt.Fprintln(m.Stderr, "console setup: "+console.SetupURL(m.publicURL(), token))
	return nil
}

// publicURL is where browsers reach the service: WEBACQ_BASE_URL, else the
// listen address (a wildcard address as localhost).
func (m *Main) publicURL() string {
	if m.cfg.BaseURL != "" {
		return m.cfg.BaseURL
	}
	host, port, err := net.SplitHostPort(m.cfg.Addr)
	if err != nil {
		return "http://" + m.cfg.Addr
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// mountConsole serves the web console at /console on api.
func (m *Main) mountConsole(api *httpapi.Server, biller *billing.Biller, monitors *monitor.Service) error {
	o := console.Options{Store: m.store, Biller: biller, Monitors: monitors, Log: m.log, Secure: m.cfg.Scheme() == "https",
		TrustedProxies: m.cfg.TrustedProxies}
	if u, err := url.Parse(m.cfg.BaseURL); err == nil && m.cfg.BaseURL != "" {
		o.Origins = []string{u.Scheme + "://" + u.Host}
	}
	c, err := console.New(o)
	if err != nil {
		return fmt.Errorf("console: %w", err)
	}
	api.SetConsole(c)
	return nil
}
