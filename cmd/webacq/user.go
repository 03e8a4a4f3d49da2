package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"webacq/internal/billing"
	"webacq/internal/console"
	"webacq/internal/httpapi"
	"webacq/internal/monitor"
)

type (
	userCmd struct {
		Create userCreateCmd `cmd:"" help:"Create a console account; its password is read from stdin."`
		Grant  userGrantCmd  `cmd:"" help:"Let a console account act on a workspace."`
	}
	userCreateCmd struct {
		Email         string `required:"" help:"Email address the account signs in with."`
		PasswordStdin bool   `name:"password-stdin" required:"" help:"Read the password from the first line of stdin (never from the command line)."`
	}
	userGrantCmd struct {
		Email     string `required:"" help:"Email address of the account."`
		Workspace string `required:"" help:"Workspace name."`
	}
)

// user runs `webacq user create` and `webacq user grant`.
func (m *Main) user(ctx context.Context, command string, c *userCmd) error {
	switch command {
	case "user create":
		email, err := console.NormalizeEmail(c.Create.Email)
		if err != nil {
			return err
		}
		line, err := bufio.NewReader(os.Stdin).ReadString('\n')
		if err != nil && line == "" {
			return fmt.Errorf("user create: no password on stdin (echo it, or pipe it from a password manager)")
		}
		password := strings.TrimRight(line, "\r\n")
		if err := console.CheckNewPassword(password); err != nil {
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
		if err := m.store.GrantWorkspace(ctx, u.ID, w.ID); err != nil {
			return err
		}
		fmt.Fprintf(m.Stderr, "%s may now use workspace %q in the console\n", email, w.Name)
		return nil
	}
	return fmt.Errorf("unknown command %q", command)
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
	o := console.Options{Store: m.store, Biller: biller, Monitors: monitors, Log: m.log, Secure: m.cfg.Scheme() == "https"}
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
