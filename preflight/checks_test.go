package preflight

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckVersion(t *testing.T) {
	for _, tc := range []struct {
		num  int
		want Status
	}{{130012, Fail}, {140000, OK}, {170002, OK}} {
		c := checkVersion(serverFacts{versionNum: tc.num, version: "x.y"})
		if c.Status != tc.want || (c.Status == Fail) != (c.Fix != "") {
			t.Errorf("version %d: %+v, want %s with a fix iff failed", tc.num, c, tc.want)
		}
	}
}

func TestCheckSlotsAndSenders(t *testing.T) {
	cases := []struct {
		name       string
		max, used  int
		slotExists bool
		want       Status
	}{
		{"none configured", 0, 0, false, Fail},
		{"all used", 4, 4, false, Fail},
		{"all used but ours exists", 4, 4, true, Warn},
		{"one free", 4, 3, false, Warn},
		{"one free and ours exists", 4, 3, true, OK},
		{"two free", 4, 2, false, OK},
	}
	for _, tc := range cases {
		c := checkSlots(serverFacts{maxSlots: tc.max, usedSlots: tc.used, slotExists: tc.slotExists, slotName: "s"})
		if c.Status != tc.want || (c.Status != OK) != (c.Fix != "") {
			t.Errorf("slots %s: %+v, want %s", tc.name, c, tc.want)
		}
	}
	for _, tc := range []struct {
		max, active int
		want        Status
	}{{0, 0, Fail}, {10, 10, Fail}, {10, 9, Warn}, {10, 8, OK}} {
		c := checkSenders(serverFacts{maxSenders: tc.max, activeSenders: tc.active})
		if c.Status != tc.want {
			t.Errorf("senders %d/%d: %+v, want %s", tc.active, tc.max, c, tc.want)
		}
	}
}

func TestCheckSlot(t *testing.T) {
	good := slotFacts{exists: true, slotType: "logical", plugin: "pgoutput", database: "app", walStatus: "reserved"}
	cases := []struct {
		name    string
		edit    func(*slotFacts)
		want    Status
		mention string
	}{
		{"good", func(*slotFacts) {}, OK, "resumes"},
		{"missing", func(s *slotFacts) { *s = slotFacts{} }, OK, "creates"},
		{"lost", func(s *slotFacts) { s.walStatus = "lost" }, Fail, "SELECT pg_drop_replication_slot('it''s'); then sidecar run --resync"},
		{"unreserved", func(s *slotFacts) { s.walStatus = "unreserved" }, Warn, "max_slot_wal_keep_size"},
		{"active", func(s *slotFacts) { s.activePID = 42 }, Warn, "pg_terminate_backend(42)"},
		{"active other app", func(s *slotFacts) { s.activePID, s.activeApp, s.activeClient = 42, "pg_recvlogical", "10.0.0.5" }, Warn,
			"process 42, application_name 'pg_recvlogical', from 10.0.0.5, not a sidecar"},
		{"this sidecar", func(s *slotFacts) { s.activePID, s.activeApp, s.ownDaemon = 42, "sidecar", "127.0.0.1:7432" }, OK,
			"this configuration's running sidecar (its API answers at 127.0.0.1:7432"},
		{"another sidecar", func(s *slotFacts) { s.activePID, s.activeApp, s.activeClient = 42, "sidecar", "10.0.0.7" }, Warn,
			"another sidecar (walsender pid 42, from 10.0.0.7)"},
		{"other db", func(s *slotFacts) { s.database = "other" }, Fail, "other"},
		{"wrong plugin", func(s *slotFacts) { s.plugin = "wal2json" }, Fail, "wal2json"},
		{"physical", func(s *slotFacts) { s.slotType = "physical" }, Fail, "physical"},
	}
	for _, tc := range cases {
		s := good
		tc.edit(&s)
		c := checkSlot("it's", "app", s)
		if c.Status != tc.want || !strings.Contains(c.Detail+" "+c.Fix, tc.mention) {
			t.Errorf("%s: %+v, want %s mentioning %q", tc.name, c, tc.want, tc.mention)
		}
	}
}

func TestRedactor(t *testing.T) {
	cases := []struct {
		conn, secret string
	}{
		{"postgres://u:hunter2@h/db", "hunter2"},
		{"postgres://u:p%40ss@h/db", "p@ss"},
		{"postgres://u@h/db?password=hunter2", "hunter2"},
		{"host=h password=hunter2 user=u", "hunter2"},
		{"host=h password='hun ter2' user=u", "hun ter2"},
	}
	for _, tc := range cases {
		r := newRedactor(tc.conn)
		msg := errors.New("cannot parse `" + tc.conn + "`: boom; password was " + tc.secret).Error()
		if got := r.clean(msg); strings.Contains(got, tc.secret) || !strings.Contains(got, "boom") {
			t.Errorf("clean(%q) = %q", msg, got)
		}
	}
	// Anything shaped like a password is removed even if it is not ours.
	r := newRedactor("postgres://u@h/db")
	if got := r.clean("postgres://x:other@h and password=zzz"); strings.Contains(got, "other") || strings.Contains(got, "zzz") {
		t.Errorf("clean left a password: %q", got)
	}
}
