-- Nexmark bids from Kafka, counted per 5-second event-time window and
-- channel into the Iceberg table nexmark.bid_stats, committed exactly once
-- every 2 seconds. `make demo` runs it (scripts/demo-stream.sh) against a
-- local broker; to run it by hand:
--
--   floe --warehouse wh sql -f examples/bid-stats-table.sql
--   floe kafka create-topic --brokers 127.0.0.1:9092 --topic bids
--   floe kafka produce-nexmark --brokers 127.0.0.1:9092 --bids bids --rate 200 --events 4000 --realtime &
--   floe --warehouse wh run examples/bid-stats.sql
SET 'pipeline.name' = 'bid-stats';
SET 'execution.checkpointing.interval' = '2 s';

-- The flat bid records of `floe kafka produce-nexmark --bids`. JSON keys are
-- matched by the column's name as written: quote mixed-case names.
CREATE TEMPORARY TABLE bids (
  auction BIGINT,
  bidder BIGINT,
  price BIGINT,                                 -- cents
  channel STRING,
  url STRING,
  `dateTime` TIMESTAMP(3),                      -- event time
  extra STRING,
  -- Nine in ten bids come from four well-known channels; the rest are grouped.
  source AS CASE WHEN channel IN ('Google', 'Facebook', 'Baidu', 'Apple') THEN channel
            ELSE 'other' END,
  -- Bids arrive in event-time order; one second of slack.
  WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '1' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = 'bids',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'scan.startup.mode' = 'earliest-offset',
  'format' = 'json'
);

-- A window's row is written once the watermark passes its end.
INSERT INTO nexmark.bid_stats
SELECT window_start, window_end, source, COUNT(*), SUM(price)
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(`dateTime`), INTERVAL '5' SECOND))
GROUP BY window_start, window_end, source;
