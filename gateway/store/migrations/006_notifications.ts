/**
 * Notifications (issue 15 item 2, D30): per-account settings, webhook endpoints, events (inserted once by their
 * idempotent id), their outbox of deliveries (one per channel target, claimed with a lease) and the delivery log.
 * Portable like 002: strings, integers and bigint epoch-ms times only.
 */
import type { Knex } from 'knex';

export const name = '006_notifications';

/** Create the five notification tables. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('notification_settings', (t) => {
    t.string('account_id', 40).primary();
    t.integer('email_alerts').notNullable();
    t.bigInteger('low_balance_threshold').nullable();
    // Low balance is told once per crossing: armed until told, re-armed when the balance is back at the threshold.
    t.integer('low_balance_armed').notNullable();
    t.integer('low_balance_seq').notNullable();
  });
  await knex.schema.createTable('webhook_endpoints', (t) => {
    t.string('id', 40).primary();
    t.string('account_id', 40).notNullable().index('webhook_endpoints_account');
    t.string('url', 2000).notNullable();
    // The signing key (base64): what an HMAC needs, never shown again after creation.
    t.string('secret', 100).notNullable();
    t.bigInteger('created_at').notNullable();
  });
  await knex.schema.createTable('notification_events', (t) => {
    t.string('id', 200).primary();
    t.string('account_id', 40).notNullable().index('notification_events_account');
    t.string('type', 40).notNullable();
    t.text('payload').notNullable();
    t.bigInteger('created_at').notNullable().index('notification_events_created');
  });
  await knex.schema.createTable('notification_deliveries', (t) => {
    t.string('id', 40).primary();
    t.string('event_id', 200).notNullable().index('notification_deliveries_event');
    t.string('account_id', 40).notNullable();
    t.string('channel', 16).notNullable();
    t.string('target', 320).notNullable();
    t.string('status', 16).notNullable();
    t.integer('attempts').notNullable();
    t.bigInteger('next_at').notNullable();
    t.bigInteger('lease_until').notNullable();
    t.string('lease_owner', 80).nullable();
    t.index(['status', 'next_at'], 'notification_deliveries_due');
  });
  await knex.schema.createTable('notification_attempts', (t) => {
    t.bigIncrements('seq');
    t.string('delivery_id', 40).notNullable();
    t.string('account_id', 40).notNullable();
    t.bigInteger('at').notNullable();
    t.integer('ok').notNullable();
    t.integer('http_status').nullable();
    t.string('error', 60).nullable();
    t.index(['account_id', 'seq'], 'notification_attempts_account');
  });
}

/** Drop them. */
export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'notification_attempts',
    'notification_deliveries',
    'notification_events',
    'webhook_endpoints',
    'notification_settings',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
