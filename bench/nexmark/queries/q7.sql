-- Nexmark q7-style: the highest price in tumbling windows of 10 s
-- (q7 proper then joins back to find the bids of that price).
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

INSERT INTO nexmark.q7
SELECT window_start, window_end, MAX(price) AS maxprice
FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
