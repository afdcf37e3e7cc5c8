-- q0 on bids from floe's nexmark connector: the same generator (and seed)
-- as `floe kafka produce-nexmark`, without Kafka and JSON in between, so
-- the result must equal q0's over the topic. Flink's Nexmark connector
-- options; the driver sets nexmark.events.num to the events it produced.
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
  'connector' = 'nexmark',
  'nexmark.table' = 'bid',
  'nexmark.events.num' = '1000000',
  'nexmark.rate.limited' = 'false',
  'seed' = '0'
);
INSERT INTO nexmark.q0
SELECT auction, bidder, price, channel, url, `dateTime`, extra FROM bid;
