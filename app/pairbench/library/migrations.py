"""The schema as a ladder of migrations keyed on ``PRAGMA user_version``."""

from __future__ import annotations

import sqlite3

from pairbench.library.uuids import UUID4_SQL, UUID_TABLES

# application_id marks a file as a Pairbench library ("PBNC"), so another SQLite database is
# recognised and left alone.
APPLICATION_ID = 0x50424E43

# Each entry upgrades the schema from version i to i + 1. Never edit a released entry: append.
MIGRATIONS: list[str] = [
    # 0 -> 1: the first schema.
    """
    CREATE TABLE hosts (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        address TEXT NOT NULL,
        port INTEGER NOT NULL DEFAULT 22,
        user TEXT,
        auth TEXT NOT NULL,
        key_path TEXT,
        jump TEXT,
        tags TEXT NOT NULL DEFAULT '{}'
    );
    CREATE TABLE pairs (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        client_host_id INTEGER NOT NULL REFERENCES hosts(id) ON DELETE RESTRICT,
        server_host_id INTEGER NOT NULL REFERENCES hosts(id) ON DELETE RESTRICT,
        data_address TEXT,
        description TEXT NOT NULL DEFAULT '',
        tags TEXT NOT NULL DEFAULT '{}'
    );
    CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        pair TEXT NOT NULL,
        tool TEXT NOT NULL,
        tool_version TEXT NOT NULL DEFAULT '',
        params TEXT NOT NULL DEFAULT '{}',
        status TEXT NOT NULL,
        started_at REAL NOT NULL,
        ended_at REAL,
        updated_at REAL NOT NULL,
        summary TEXT NOT NULL DEFAULT '{}',
        summary_complete INTEGER NOT NULL DEFAULT 0,
        host_facts TEXT NOT NULL DEFAULT '{}',
        label TEXT NOT NULL DEFAULT '',
        tags TEXT NOT NULL DEFAULT '{}',
        notes TEXT NOT NULL DEFAULT '',
        error TEXT,
        owner_host TEXT NOT NULL DEFAULT '',
        owner_pid INTEGER NOT NULL DEFAULT 0,
        owner_token TEXT NOT NULL DEFAULT ''
    );
    CREATE INDEX runs_status ON runs(status);
    CREATE TABLE series (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        stream TEXT NOT NULL,
        metric TEXT NOT NULL,
        unit TEXT NOT NULL DEFAULT '',
        UNIQUE (run_id, stream, metric)
    );
    -- Columnar chunks: one row per series per flush, t and v as little-endian float64 blobs.
    CREATE TABLE chunks (
        series_id INTEGER NOT NULL REFERENCES series(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        n INTEGER NOT NULL,
        t BLOB NOT NULL,
        v BLOB NOT NULL,
        PRIMARY KEY (series_id, seq)
    ) WITHOUT ROWID;
    CREATE TABLE raw_chunks (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        source TEXT NOT NULL,
        text TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
    ) WITHOUT ROWID;
    INSERT INTO hosts (name, address, port, auth) VALUES ('localhost', '127.0.0.1', 22, 'local');
    INSERT INTO pairs (name, client_host_id, server_host_id, data_address, description)
        SELECT 'local', id, id, '127.0.0.1', 'This computer' FROM hosts WHERE name = 'localhost';
    """,
    # 1 -> 2: pinned SSH host keys (public keys, not secrets), per host name.
    """
    CREATE TABLE host_keys (
        host_name TEXT NOT NULL,
        key TEXT NOT NULL,
        added_at REAL NOT NULL,
        PRIMARY KEY (host_name, key)
    );
    """,
    # 2 -> 3: analyses stored with their run (one per kind, e.g. "burst"), as JSON objects.
    """
    CREATE TABLE analyses (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        kind TEXT NOT NULL,
        json TEXT NOT NULL,
        created_at REAL NOT NULL,
        PRIMARY KEY (run_id, kind)
    ) WITHOUT ROWID;
    CREATE INDEX analyses_kind ON analyses(kind);
    """,
    # 3 -> 4: indexes for the Library's filters and sort orders: one per sortable column,
    # each followed by the start time (newest first within a pair, tool, ...) and, as in
    # every SQLite index, the id. runs_status(status) is a prefix of runs_status_started.
    """
    CREATE INDEX runs_started ON runs(started_at, id);
    CREATE INDEX runs_pair ON runs(pair, started_at);
    CREATE INDEX runs_tool ON runs(tool, started_at);
    CREATE INDEX runs_status_started ON runs(status, started_at);
    DROP INDEX runs_status;
    CREATE INDEX runs_label ON runs(label, started_at);
    """,
    # 4 -> 5: a run's time axis stored once. Time blobs move to `times`, one row per distinct
    # blob of a run; a chunk refers to its time row (time_id, a row of the same run; not a
    # declared foreign key: SQLite would need an index on chunks(time_id) to delete a run).
    # The window groups the old chunks by (run, time blob): its dense rank is the time row's
    # id, and the one row of each group whose row number equals its rank supplies the blob.
    """
    CREATE TABLE times (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        n INTEGER NOT NULL,
        t BLOB NOT NULL
    );
    CREATE INDEX times_run ON times(run_id);
    CREATE TEMP TABLE time_of_chunk (
        series_id INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        time_id INTEGER NOT NULL,
        supplies INTEGER NOT NULL,
        PRIMARY KEY (series_id, seq)
    ) WITHOUT ROWID;
    INSERT INTO time_of_chunk (series_id, seq, time_id, supplies)
        SELECT c.series_id, c.seq, DENSE_RANK() OVER w, ROW_NUMBER() OVER w = RANK() OVER w
        FROM chunks c JOIN series s ON s.id = c.series_id
        WINDOW w AS (ORDER BY s.run_id, c.t);
    INSERT INTO times (id, run_id, n, t)
        SELECT m.time_id, s.run_id, c.n, c.t
        FROM time_of_chunk m
        JOIN chunks c ON c.series_id = m.series_id AND c.seq = m.seq
        JOIN series s ON s.id = c.series_id
        WHERE m.supplies
        ORDER BY m.time_id;
    CREATE TABLE chunks_v5 (
        series_id INTEGER NOT NULL REFERENCES series(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        n INTEGER NOT NULL,
        time_id INTEGER NOT NULL,
        v BLOB NOT NULL,
        PRIMARY KEY (series_id, seq)
    ) WITHOUT ROWID;
    INSERT INTO chunks_v5 (series_id, seq, n, time_id, v)
        SELECT c.series_id, c.seq, c.n, m.time_id, c.v
        FROM chunks c JOIN time_of_chunk m ON m.series_id = c.series_id AND m.seq = c.seq
        ORDER BY c.series_id, c.seq;
    DROP TABLE chunks;
    ALTER TABLE chunks_v5 RENAME TO chunks;
    DROP TABLE temp.time_of_chunk;
    """,
    # 6: storage suites. A suite is a plan (its parameters, stored whole) run on one host;
    # each fio job it ran is a run of its own, listed in suite_jobs by stage, round and job
    # (stage -1: preconditioning). A job whose run is gone or did not complete is run again
    # on resume; the steady-state verdict per stage is kept as JSON with the suite.
    """
    CREATE TABLE suites (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL,
        host TEXT NOT NULL,
        params TEXT NOT NULL,
        status TEXT NOT NULL,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        ended_at REAL,
        label TEXT NOT NULL DEFAULT '',
        facts TEXT NOT NULL DEFAULT '{}',
        verdicts TEXT NOT NULL DEFAULT '{}',
        error TEXT,
        owner_host TEXT NOT NULL DEFAULT '',
        owner_pid INTEGER NOT NULL DEFAULT 0,
        owner_token TEXT NOT NULL DEFAULT ''
    );
    CREATE TABLE suite_jobs (
        suite_id INTEGER NOT NULL REFERENCES suites(id) ON DELETE CASCADE,
        stage INTEGER NOT NULL,
        round INTEGER NOT NULL,
        job INTEGER NOT NULL,
        run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
        status TEXT NOT NULL,
        figures TEXT NOT NULL DEFAULT '{}',
        PRIMARY KEY (suite_id, stage, round, job)
    );
    CREATE INDEX suite_jobs_run ON suite_jobs(run_id);
    """,
    # 7: campaigns. A campaign is a plan (stored whole, with its TOML text and the cells it
    # expanded to when it started) and a seed; each run it started is listed in
    # campaign_runs with its cell, pass, round and attempt (the run also carries them as
    # tags); cells skipped (failures, preflight) and passes ended or missed are kept apart.
    """
    CREATE TABLE campaigns (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        plan TEXT NOT NULL,
        plan_text TEXT NOT NULL DEFAULT '',
        cells TEXT NOT NULL,
        seed INTEGER NOT NULL,
        status TEXT NOT NULL,
        paused INTEGER NOT NULL DEFAULT 0,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        ended_at REAL,
        label TEXT NOT NULL DEFAULT '',
        error TEXT,
        owner_host TEXT NOT NULL DEFAULT '',
        owner_pid INTEGER NOT NULL DEFAULT 0,
        owner_token TEXT NOT NULL DEFAULT ''
    );
    CREATE TABLE campaign_runs (
        id INTEGER PRIMARY KEY,
        campaign_id INTEGER NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
        cell INTEGER NOT NULL,
        pass INTEGER NOT NULL,
        round INTEGER NOT NULL,
        attempt INTEGER NOT NULL,
        run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
        status TEXT NOT NULL,
        value REAL,
        at REAL NOT NULL,
        error TEXT NOT NULL DEFAULT ''
    );
    CREATE INDEX campaign_runs_campaign ON campaign_runs(campaign_id, pass, cell);
    CREATE UNIQUE INDEX campaign_runs_run ON campaign_runs(run_id);
    CREATE TABLE campaign_skips (
        campaign_id INTEGER NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
        cell INTEGER NOT NULL,
        reason TEXT NOT NULL,
        at REAL NOT NULL,
        PRIMARY KEY (campaign_id, cell)
    );
    CREATE TABLE campaign_passes (
        campaign_id INTEGER NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
        pass INTEGER NOT NULL,
        status TEXT NOT NULL,
        at REAL NOT NULL,
        PRIMARY KEY (campaign_id, pass)
    );
    """,
    # 8: a campaign cell may run a storage suite instead of one run: the suite carries the
    # campaign's tags (cell, pass, round, attempt), so a campaign killed mid-suite resumes
    # that suite, and campaign_runs lists the suite it ran.
    """
    ALTER TABLE suites ADD COLUMN tags TEXT NOT NULL DEFAULT '{}';
    ALTER TABLE campaign_runs ADD COLUMN suite_id INTEGER REFERENCES suites(id) ON DELETE SET NULL;
    CREATE INDEX campaign_runs_suite ON campaign_runs(suite_id);
    """,
    # 9: a team library. Settings of this library (the team server's address without its
    # password, who publishes, automatic publishing); each run's UUID (given when it was first
    # published, until 11, so a run published twice is stored once); the runs published, and the
    # outbox of finished runs waiting to be published (filled by the triggers while automatic
    # publishing is on, so no code path that finishes or imports a run can forget it).
    """
    CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    ) WITHOUT ROWID;
    ALTER TABLE runs ADD COLUMN uuid TEXT;
    CREATE UNIQUE INDEX runs_uuid ON runs(uuid) WHERE uuid IS NOT NULL;
    CREATE TABLE team_published (
        run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
        uuid TEXT NOT NULL,
        server TEXT NOT NULL,
        published_at REAL NOT NULL
    );
    CREATE TABLE team_outbox (
        run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
        queued_at REAL NOT NULL,
        tries INTEGER NOT NULL DEFAULT 0,
        last_error TEXT NOT NULL DEFAULT ''
    );
    CREATE TRIGGER team_outbox_on_finish AFTER UPDATE OF status ON runs
    WHEN OLD.status = 'running' AND NEW.status != 'running'
        AND (SELECT value FROM settings WHERE key = 'team.auto') = 'on'
    BEGIN
        INSERT OR IGNORE INTO team_outbox (run_id, queued_at)
            VALUES (NEW.id, (julianday('now') - 2440587.5) * 86400.0);
    END;
    CREATE TRIGGER team_outbox_on_import AFTER INSERT ON runs
    WHEN NEW.status != 'running'
        AND (SELECT value FROM settings WHERE key = 'team.auto') = 'on'
    BEGIN
        INSERT OR IGNORE INTO team_outbox (run_id, queued_at)
            VALUES (NEW.id, (julianday('now') - 2440587.5) * 86400.0);
    END;
    """,
    # 10: suites and campaigns published to the team library. Each gets a UUID when first
    # published (kept); team_entities lists what was published with the entity's updated_at
    # then, so one changed since (a campaign resumed) is published again and replaces its
    # copy; team_entity_outbox holds those waiting, filled by triggers while automatic
    # publishing is on (an entity that ends, or changes once ended). kind: suite | campaign.
    """
    ALTER TABLE suites ADD COLUMN uuid TEXT;
    CREATE UNIQUE INDEX suites_uuid ON suites(uuid) WHERE uuid IS NOT NULL;
    ALTER TABLE campaigns ADD COLUMN uuid TEXT;
    CREATE UNIQUE INDEX campaigns_uuid ON campaigns(uuid) WHERE uuid IS NOT NULL;
    CREATE TABLE team_entities (
        kind TEXT NOT NULL,
        entity_id INTEGER NOT NULL,
        uuid TEXT NOT NULL,
        server TEXT NOT NULL,
        updated_at REAL NOT NULL,
        published_at REAL NOT NULL,
        PRIMARY KEY (kind, entity_id)
    ) WITHOUT ROWID;
    CREATE TABLE team_entity_outbox (
        kind TEXT NOT NULL,
        entity_id INTEGER NOT NULL,
        queued_at REAL NOT NULL,
        tries INTEGER NOT NULL DEFAULT 0,
        last_error TEXT NOT NULL DEFAULT '',
        PRIMARY KEY (kind, entity_id)
    ) WITHOUT ROWID;
    CREATE TRIGGER team_entity_suite_changed AFTER UPDATE OF status, updated_at ON suites
    WHEN NEW.status != 'running' AND (OLD.status = 'running' OR NEW.updated_at != OLD.updated_at)
        AND (SELECT value FROM settings WHERE key = 'team.auto') = 'on'
    BEGIN
        INSERT OR IGNORE INTO team_entity_outbox (kind, entity_id, queued_at)
            VALUES ('suite', NEW.id, (julianday('now') - 2440587.5) * 86400.0);
    END;
    CREATE TRIGGER team_entity_campaign_changed AFTER UPDATE OF status, updated_at ON campaigns
    WHEN NEW.status != 'running' AND (OLD.status = 'running' OR NEW.updated_at != OLD.updated_at)
        AND (SELECT value FROM settings WHERE key = 'team.auto') = 'on'
    BEGIN
        INSERT OR IGNORE INTO team_entity_outbox (kind, entity_id, queued_at)
            VALUES ('campaign', NEW.id, (julianday('now') - 2440587.5) * 86400.0);
    END;
    CREATE TRIGGER team_entity_suite_deleted AFTER DELETE ON suites
    BEGIN
        DELETE FROM team_entities WHERE kind = 'suite' AND entity_id = OLD.id;
        DELETE FROM team_entity_outbox WHERE kind = 'suite' AND entity_id = OLD.id;
    END;
    CREATE TRIGGER team_entity_campaign_deleted AFTER DELETE ON campaigns
    BEGIN
        DELETE FROM team_entities WHERE kind = 'campaign' AND entity_id = OLD.id;
        DELETE FROM team_entity_outbox WHERE kind = 'campaign' AND entity_id = OLD.id;
    END;
    """,
    # 11: every run, suite and campaign has a UUID from its creation (library/uuids.py), so
    # a copy of it (a bundle imported elsewhere, a copied file) is one run to the team
    # library; those made before get a random (version 4) one now.
    "\n".join(f"UPDATE {t} SET uuid = {UUID4_SQL} WHERE uuid IS NULL;" for t in UUID_TABLES),
    # 12: what an OpenSSH config says about a host (identity files, known_hosts files,
    # HostKeyAlias, ProxyCommand, ProxyJump hops...), as the JSON of
    # domain/ssh_options_json.py; '{}' for a host added by hand.
    """
    ALTER TABLE hosts ADD COLUMN ssh TEXT NOT NULL DEFAULT '{}';
    """,
]

SCHEMA_VERSION = len(MIGRATIONS)


def migrate(conn: sqlite3.Connection, target: int = SCHEMA_VERSION) -> int:
    """Apply every migration from the file's version up to ``target``; return the old version.

    Each step runs in its own transaction together with its ``user_version`` bump, so a
    crash leaves the file at a whole version.
    """
    current = int(conn.execute("PRAGMA user_version").fetchone()[0])
    for version in range(current, target):
        script = MIGRATIONS[version]
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _split_statements(script):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {version + 1}")
            if version == 0:
                conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:  # SQLite may have rolled back already (disk full)
                conn.execute("ROLLBACK")
            raise
    return current


def _split_statements(script: str) -> list[str]:
    """Split a migration script into complete statements (executescript would auto-commit)."""
    statements: list[str] = []
    buffer = ""
    for line in script.splitlines(keepends=True):
        if line.strip().startswith("--"):
            continue
        buffer += line
        if sqlite3.complete_statement(buffer):
            statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        statements.append(buffer.strip())
    return statements
