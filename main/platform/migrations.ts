import type { Migration } from '../store/durable-db.ts';
import { PACKED_SCHEMA } from './telemetry-packs.ts';

/** Numbered schema migrations, applied in order at start and recorded in _migrations. */
export const migrations: Migration[] = [
  {
    version: 1,
    name: 'platform entities',
    up(w) {
      const ddl = [
        `CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
        `CREATE TABLE customers (
          id TEXT PRIMARY KEY, created_time INTEGER NOT NULL, title TEXT NOT NULL UNIQUE,
          email TEXT, phone TEXT, country TEXT, city TEXT, address TEXT, additional_info TEXT)`,
        `CREATE TABLE users (
          id TEXT PRIMARY KEY, created_time INTEGER NOT NULL, email TEXT NOT NULL UNIQUE COLLATE NOCASE,
          authority TEXT NOT NULL, customer_id TEXT,
          first_name TEXT, last_name TEXT, password_hash TEXT, default_password INTEGER NOT NULL DEFAULT 0,
          tokens_valid_from INTEGER NOT NULL DEFAULT 0, additional_info TEXT)`,
        `CREATE TABLE device_profiles (
          id TEXT PRIMARY KEY, created_time INTEGER NOT NULL, name TEXT NOT NULL UNIQUE, description TEXT,
          is_default INTEGER NOT NULL DEFAULT 0, type TEXT NOT NULL DEFAULT 'DEFAULT',
          transport_type TEXT NOT NULL DEFAULT 'DEFAULT', default_rule_chain_id TEXT, profile_data TEXT)`,
        `CREATE TABLE devices (
          num INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, created_time INTEGER NOT NULL,
          name TEXT NOT NULL UNIQUE, type TEXT NOT NULL, label TEXT,
          device_profile_id TEXT NOT NULL, customer_id TEXT, additional_info TEXT)`,
        `CREATE INDEX devices_customer ON devices(customer_id)`,
        `CREATE TABLE device_credentials (
          id TEXT PRIMARY KEY, created_time INTEGER NOT NULL, device_id TEXT NOT NULL UNIQUE,
          credentials_type TEXT NOT NULL, credentials_id TEXT NOT NULL UNIQUE, credentials_value TEXT)`,
        `CREATE TABLE attributes (
          entity_id TEXT NOT NULL, scope TEXT NOT NULL, key TEXT NOT NULL, t TEXT NOT NULL, v,
          last_update_ts INTEGER NOT NULL, PRIMARY KEY (entity_id, scope, key)) WITHOUT ROWID`,
        `CREATE TABLE ts_key (key_id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE)`,
        `CREATE TABLE ts_kv (
          entity_num INTEGER NOT NULL, key_id INTEGER NOT NULL, ts INTEGER NOT NULL, t TEXT NOT NULL, v,
          PRIMARY KEY (entity_num, key_id, ts)) WITHOUT ROWID`,
        `CREATE TABLE ts_kv_latest (
          entity_num INTEGER NOT NULL, key_id INTEGER NOT NULL, ts INTEGER NOT NULL, t TEXT NOT NULL, v,
          PRIMARY KEY (entity_num, key_id)) WITHOUT ROWID`,
        `CREATE TABLE relations (
          from_id TEXT NOT NULL, from_type TEXT NOT NULL, to_id TEXT NOT NULL, to_type TEXT NOT NULL,
          type TEXT NOT NULL, type_group TEXT NOT NULL DEFAULT 'COMMON', additional_info TEXT,
          PRIMARY KEY (from_id, from_type, type, type_group, to_id, to_type))`,
        `CREATE INDEX relations_to ON relations(to_id, to_type)`,
        `CREATE TABLE edges (
          id TEXT PRIMARY KEY, created_time INTEGER NOT NULL, name TEXT NOT NULL UNIQUE, type TEXT NOT NULL,
          label TEXT, routing_key TEXT NOT NULL UNIQUE, secret_hash TEXT NOT NULL, customer_id TEXT,
          additional_info TEXT)`,
        `CREATE TABLE api_keys (
          id TEXT PRIMARY KEY, created_time INTEGER NOT NULL, user_id TEXT NOT NULL,
          description TEXT NOT NULL, expiration_time INTEGER NOT NULL DEFAULT 0, enabled INTEGER NOT NULL DEFAULT 1,
          key_hash TEXT NOT NULL UNIQUE)`,
        `CREATE TABLE revoked_sessions (session_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, expires_at INTEGER NOT NULL)`,
        `CREATE TABLE rule_chains (
          id TEXT PRIMARY KEY, created_time INTEGER NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL DEFAULT 'CORE',
          root INTEGER NOT NULL DEFAULT 0, debug_mode INTEGER NOT NULL DEFAULT 0, configuration TEXT,
          additional_info TEXT, metadata TEXT NOT NULL)`,
        `CREATE TABLE table_views (
          id TEXT PRIMARY KEY, created_time INTEGER NOT NULL, name TEXT NOT NULL, config TEXT NOT NULL)`,
      ];
      for (const sql of ddl) w.run(sql);
    },
  },
  {
    version: 2,
    name: 'device claims',
    up(w) {
      w.run(
        'CREATE TABLE device_claims (device_id TEXT PRIMARY KEY, secret_key TEXT NOT NULL, expires_at INTEGER NOT NULL)',
      );
    },
  },
  {
    version: 3,
    name: 'simulation scenarios',
    up(w) {
      w.run(
        `CREATE TABLE simulation_scenarios (
          id TEXT PRIMARY KEY, created_time INTEGER NOT NULL, updated_time INTEGER NOT NULL,
          name TEXT NOT NULL, scenario TEXT NOT NULL)`,
      );
    },
  },
  {
    version: 4,
    name: 'edge event queue',
    up(w) {
      w.run(
        `CREATE TABLE edge_events (
          seq_id INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL, created_time INTEGER NOT NULL,
          edge_id TEXT NOT NULL, type TEXT NOT NULL, action TEXT NOT NULL, entity_id TEXT NOT NULL, uid TEXT NOT NULL,
          body TEXT, status TEXT NOT NULL DEFAULT 'PENDING', retrieved_at INTEGER, delivered_at INTEGER)`,
      );
      w.run('CREATE INDEX edge_events_queue ON edge_events (edge_id, status, seq_id)');
      w.run('CREATE INDEX edge_events_delivered ON edge_events (status, delivered_at)');
    },
  },
  {
    version: 5,
    name: 'latest telemetry kept by a trigger',
    up(w) {
      // One statement per datapoint crosses into sql.js and the journal instead of two.
      w.run(
        `CREATE TRIGGER ts_kv_latest_upsert AFTER INSERT ON ts_kv BEGIN
           INSERT INTO ts_kv_latest (entity_num, key_id, ts, t, v) VALUES (NEW.entity_num, NEW.key_id, NEW.ts, NEW.t, NEW.v)
           ON CONFLICT (entity_num, key_id) DO UPDATE SET ts = excluded.ts, t = excluded.t, v = excluded.v
           WHERE excluded.ts >= ts_kv_latest.ts;
         END`,
      );
    },
  },
  {
    version: 6,
    name: 'REST connectors',
    up(w) {
      w.run(
        `CREATE TABLE rest_connectors (
          id TEXT PRIMARY KEY, created_time INTEGER NOT NULL, updated_time INTEGER NOT NULL,
          name TEXT NOT NULL UNIQUE, gateway_name TEXT NOT NULL, config TEXT NOT NULL, target TEXT,
          gateway_device_id TEXT, autostart INTEGER NOT NULL DEFAULT 0)`,
      );
    },
  },
  {
    version: 7,
    name: 'device provisioning',
    up(w) {
      w.run(`ALTER TABLE device_profiles ADD COLUMN provision_type TEXT NOT NULL DEFAULT 'DISABLED'`);
      w.run('ALTER TABLE device_profiles ADD COLUMN provision_device_key TEXT');
      w.run('CREATE UNIQUE INDEX device_profiles_provision_key ON device_profiles(provision_device_key)');
    },
  },
  {
    version: 10,
    name: 'activation and password reset tokens of users',
    up(w) {
      w.run('ALTER TABLE users ADD COLUMN activate_token TEXT');
      w.run('ALTER TABLE users ADD COLUMN activate_token_exp INTEGER');
      w.run('ALTER TABLE users ADD COLUMN reset_token TEXT');
      w.run('ALTER TABLE users ADD COLUMN reset_token_exp INTEGER');
      w.run(
        'CREATE UNIQUE INDEX users_activate_token ON users(activate_token) WHERE activate_token IS NOT NULL',
      );
      w.run('CREATE UNIQUE INDEX users_reset_token ON users(reset_token) WHERE reset_token IS NOT NULL');
    },
  },
  {
    version: 11,
    name: 'user settings',
    up(w) {
      w.run(
        `CREATE TABLE user_settings (
          user_id TEXT NOT NULL, type TEXT NOT NULL, settings TEXT NOT NULL, PRIMARY KEY (user_id, type)) WITHOUT ROWID`,
      );
    },
  },
  {
    version: 12,
    name: 'persistent RPC',
    up(w) {
      w.run(
        `CREATE TABLE rpc (
          id TEXT PRIMARY KEY, created_time INTEGER NOT NULL, device_id TEXT NOT NULL,
          request_id INTEGER NOT NULL, oneway INTEGER NOT NULL, expiration_time INTEGER NOT NULL,
          method TEXT NOT NULL, params TEXT, retries INTEGER, attempts INTEGER NOT NULL DEFAULT 0,
          status TEXT NOT NULL, response TEXT, additional_info TEXT)`,
      );
      w.run('CREATE INDEX rpc_device ON rpc (device_id, created_time)');
      w.run('CREATE INDEX rpc_status ON rpc (status)');
    },
  },
  {
    version: 15,
    name: 'users can be disabled',
    up(w) {
      w.run('ALTER TABLE users ADD COLUMN enabled INTEGER NOT NULL DEFAULT 1');
    },
  },
  {
    version: 20,
    name: 'assets, asset profiles and telemetry numbers of every entity',
    up(w) {
      const ddl = [
        `CREATE TABLE asset_profiles (
          id TEXT PRIMARY KEY, created_time INTEGER NOT NULL, name TEXT NOT NULL UNIQUE, description TEXT,
          image TEXT, is_default INTEGER NOT NULL DEFAULT 0, default_rule_chain_id TEXT, default_dashboard_id TEXT,
          default_queue_name TEXT, default_edge_rule_chain_id TEXT)`,
        `CREATE TABLE assets (
          id TEXT PRIMARY KEY, created_time INTEGER NOT NULL, name TEXT NOT NULL UNIQUE, type TEXT NOT NULL,
          label TEXT, asset_profile_id TEXT NOT NULL, customer_id TEXT, additional_info TEXT)`,
        `CREATE INDEX assets_customer ON assets(customer_id)`,
        `CREATE INDEX assets_profile ON assets(asset_profile_id)`,
        // Time series are keyed by an integer: a device's num, or minus the num given here to any other entity.
        `CREATE TABLE entity_nums (
          num INTEGER PRIMARY KEY AUTOINCREMENT, entity_type TEXT NOT NULL, entity_id TEXT NOT NULL UNIQUE)`,
      ];
      for (const sql of ddl) w.run(sql);
    },
  },
  {
    version: 21,
    name: 'alarms',
    up(w) {
      const ddl = [
        `CREATE TABLE alarms (
          id TEXT PRIMARY KEY, created_time INTEGER NOT NULL, type TEXT NOT NULL,
          originator_id TEXT NOT NULL, originator_type TEXT NOT NULL, customer_id TEXT,
          severity TEXT NOT NULL, acknowledged INTEGER NOT NULL DEFAULT 0, cleared INTEGER NOT NULL DEFAULT 0,
          assignee_id TEXT, start_ts INTEGER NOT NULL, end_ts INTEGER NOT NULL, ack_ts INTEGER NOT NULL DEFAULT 0,
          clear_ts INTEGER NOT NULL DEFAULT 0, assign_ts INTEGER NOT NULL DEFAULT 0, details TEXT,
          propagate INTEGER NOT NULL DEFAULT 0, propagate_to_owner INTEGER NOT NULL DEFAULT 0,
          propagate_to_tenant INTEGER NOT NULL DEFAULT 0, propagate_relation_types TEXT NOT NULL DEFAULT '[]')`,
        // At most one active (not cleared) alarm of a type per originator.
        `CREATE UNIQUE INDEX alarms_active ON alarms(originator_id, type) WHERE cleared = 0`,
        `CREATE INDEX alarms_created ON alarms(created_time)`,
        `CREATE INDEX alarms_customer ON alarms(customer_id)`,
        // Every entity an alarm shows on: its originator and the entities it propagated to.
        `CREATE TABLE entity_alarms (
          entity_id TEXT NOT NULL, entity_type TEXT NOT NULL, alarm_id TEXT NOT NULL,
          PRIMARY KEY (entity_id, alarm_id)) WITHOUT ROWID`,
        `CREATE INDEX entity_alarms_alarm ON entity_alarms(alarm_id)`,
      ];
      for (const sql of ddl) w.run(sql);
    },
  },
  {
    version: 30,
    name: 'device profile queue name',
    up(w) {
      // A device profile names the queue its devices' messages go to (ThingsBoard's defaultQueueName).
      w.run('ALTER TABLE device_profiles ADD COLUMN default_queue_name TEXT');
    },
  },
  {
    version: 41,
    name: 'rule node states',
    up(w) {
      // What a rule node keeps per entity across restarts (ThingsBoard's rule_node_state): the device
      // profile node's progress of each alarm rule (durations and repeats being counted).
      w.run(`CREATE TABLE rule_node_states (
        rule_node_id TEXT NOT NULL, entity_id TEXT NOT NULL, entity_type TEXT NOT NULL, state_data TEXT NOT NULL,
        PRIMARY KEY (rule_node_id, entity_id)) WITHOUT ROWID`);
      w.run('CREATE INDEX rule_node_states_entity ON rule_node_states(entity_id)');
    },
  },
  {
    version: 46,
    name: 'alarm comments',
    up(w) {
      // ThingsBoard's alarm_comment: users' comments and the platform's own (acknowledged, cleared).
      w.run(`CREATE TABLE alarm_comments (
        id TEXT PRIMARY KEY, created_time INTEGER NOT NULL, alarm_id TEXT NOT NULL, user_id TEXT,
        type TEXT NOT NULL, comment TEXT NOT NULL)`);
      w.run('CREATE INDEX alarm_comments_alarm ON alarm_comments(alarm_id, created_time)');
    },
  },
  {
    version: 59,
    name: 'per-edge event sequence numbers',
    up(w) {
      // seq_id is one sequence across every edge (ThingsBoard's edge_event.seq_id too): an edge cannot tell a
      // gap from another edge's events. edge_seq counts each edge's own events 1, 2, 3, ...; the edge keeps the
      // last one given, so numbers go on after delivered events are dropped.
      w.run('ALTER TABLE edges ADD COLUMN event_seq INTEGER NOT NULL DEFAULT 0');
      w.run('ALTER TABLE edge_events ADD COLUMN edge_seq INTEGER NOT NULL DEFAULT 0');
      w.run(
        `UPDATE edge_events SET edge_seq = r.n FROM (
           SELECT seq_id AS s, ROW_NUMBER() OVER (PARTITION BY edge_id ORDER BY seq_id) AS n FROM edge_events
         ) AS r WHERE r.s = edge_events.seq_id`,
      );
      w.run(
        `UPDATE edges SET event_seq = m.top FROM (
           SELECT edge_id, MAX(edge_seq) AS top FROM edge_events GROUP BY edge_id
         ) AS m WHERE m.edge_id = edges.id`,
      );
    },
  },
  {
    version: 63,
    name: 'dashboards',
    up(w) {
      // ThingsBoard's dashboard and the customers it is assigned to (a dashboard may have many).
      w.run(`CREATE TABLE dashboards (
        id TEXT PRIMARY KEY, created_time INTEGER NOT NULL, title TEXT NOT NULL, image TEXT,
        mobile_hide INTEGER NOT NULL DEFAULT 0, mobile_order INTEGER, configuration TEXT,
        version INTEGER NOT NULL DEFAULT 1)`);
      w.run(`CREATE TABLE dashboard_customers (
        dashboard_id TEXT NOT NULL, customer_id TEXT NOT NULL, PRIMARY KEY (dashboard_id, customer_id)) WITHOUT ROWID`);
      w.run('CREATE INDEX dashboard_customers_customer ON dashboard_customers(customer_id)');
    },
  },
  {
    version: 72,
    name: 'calculated fields',
    up(w) {
      // ThingsBoard's calculated_field: a field defined on a device, asset or profile (its configuration as
      // JSON), and the debug events of its runs (bounded per field by the service).
      w.run(`CREATE TABLE calculated_fields (
        id TEXT PRIMARY KEY, created_time INTEGER NOT NULL, entity_type TEXT NOT NULL, entity_id TEXT NOT NULL,
        type TEXT NOT NULL, name TEXT NOT NULL, debug_settings TEXT, configuration_version INTEGER NOT NULL DEFAULT 1,
        configuration TEXT NOT NULL, version INTEGER NOT NULL DEFAULT 1)`);
      w.run('CREATE INDEX calculated_fields_entity ON calculated_fields(entity_id)');
      w.run(`CREATE TABLE calculated_field_events (
        id TEXT PRIMARY KEY, created_time INTEGER NOT NULL, cf_id TEXT NOT NULL, entity_type TEXT NOT NULL,
        entity_id TEXT NOT NULL, body TEXT NOT NULL)`);
      w.run('CREATE INDEX calculated_field_events_cf ON calculated_field_events(cf_id, created_time)');
    },
  },
  {
    version: 64,
    name: 'devices by creation time',
    up(w) {
      // the device list's default order (newest first): without it, every page sorts the whole table
      w.run('CREATE INDEX devices_created ON devices(created_time, id)');
    },
  },
  {
    version: 69,
    name: 'MQTT snippets',
    up(w) {
      // the MQTT page's saved payload snippets (were in the browser's storage), one row each, in order
      w.run('CREATE TABLE mqtt_snippets (position INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    },
  },
  {
    version: 74,
    name: 'OTA packages',
    up(w) {
      // ThingsBoard's ota_package (its data is a file in the data directory) and the firmware / software a
      // device or a device profile is given.
      w.run(`CREATE TABLE ota_packages (
        id TEXT PRIMARY KEY, created_time INTEGER NOT NULL, device_profile_id TEXT, type TEXT NOT NULL,
        title TEXT NOT NULL, version TEXT NOT NULL, tag TEXT, url TEXT, file_name TEXT, content_type TEXT,
        checksum_algorithm TEXT, checksum TEXT, data_size INTEGER, has_data INTEGER NOT NULL DEFAULT 0,
        additional_info TEXT, UNIQUE (title, version))`);
      for (const table of ['devices', 'device_profiles']) {
        w.run(`ALTER TABLE ${table} ADD COLUMN firmware_id TEXT`);
        w.run(`ALTER TABLE ${table} ADD COLUMN software_id TEXT`);
      }
    },
  },
  {
    version: 102,
    name: 'packed time series',
    up(w) {
      // calculated fields' results of a message: one row for all their keys (telemetry-packs.ts)
      for (const sql of PACKED_SCHEMA) w.run(sql);
    },
  },
];
