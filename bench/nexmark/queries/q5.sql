-- Nexmark q5-style: bids per auction in sliding windows of 10 s every 2 s
-- (q5 proper then picks the hottest auction of each window).
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

INSERT INTO nexmark.q5
SELECT auction, window_start, window_end, COUNT(*) AS num
FROM TABLE(HOP(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
GROUP BY auction, window_start, window_end;
