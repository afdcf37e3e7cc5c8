-- The target of examples/bid-stats.sql: one row per 5-second window and channel.
CREATE SCHEMA IF NOT EXISTS nexmark;
CREATE TABLE IF NOT EXISTS nexmark.bid_stats (
  window_start timestamp(6),
  window_end timestamp(6),
  channel varchar,
  bids bigint,
  volume_cents bigint
);
