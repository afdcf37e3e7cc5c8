-- Nexmark q2: selection, the bids of every 123rd auction.
-- The bids topic as `floe kafka produce-nexmark --bids` writes it (flat JSON,
-- Flink Nexmark's column names). The driver (bench/nexmark_bench.py) sets
-- the broker, the topic and the bounded mode; these are its defaults.
CREATE TEMPORARY TABLE bid (
  auction BIGINT,
  bidder BIGINT,
  price BIGINT,
  channel STRING,
  url STRING,
  `dateTime` TIMESTAMP(3),
  extra STRING,
  WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = 'nexmark-bid',
  'properties.bootstrap.servers' = '127.0.0.1:19092',
  'properties.group.id' = 'nexmark',
  'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset',
  'format' = 'json'
);

INSERT INTO nexmark.q2
SELECT auction, price FROM bid WHERE auction % 123 = 0;
