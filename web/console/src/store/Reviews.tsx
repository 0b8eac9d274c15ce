import { Badge, Button, Card, Group, Image, Progress, Select, SimpleGrid, Stack, Text, Textarea, Title } from "@mantine/core";
import { api } from "@marketplace/api";
import { useQuery } from "convex/react";
import type { FunctionReturnType } from "convex/server";
import { useState } from "react";
import { useActionForm } from "../app/action";
import { useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";
import { FormError } from "../ui/FormError";
import { Loading } from "../ui/Loading";
import { OptionalPeriodFilter, periodArgs, type OptionalRange } from "../ui/ListFilters";
import { Pager, usePager } from "../ui/Pager";
import { UserParagraph, UserText } from "../ui/UserText";
import { useStore } from "./StoreContext";
import { ScreenTitle } from "../ui/ScreenTitle";

type Review = FunctionReturnType<typeof api.stores.reviews.getStoreReviews>["page"][number];
const SORTS = ["newest", "oldest", "highest_rating", "lowest_rating", "most_helpful"] as const;
const PAGE = 20;

// The store's reviews: statistics (counts by rating, the plain and the
// weighted average) and the reviews, each with the store's reply, added or
// updated in place. Live: a new review, a hidden one or a vote shows at once.
export default function Reviews() {
  const { t } = useI18n();
  const { store } = useStore();
  return (
    <Stack>
      <ScreenTitle screen={t("reviews.title")} name={store.name} />
      <Stats storeId={store._id} />
      <ReviewList storeId={store._id} />
    </Stack>
  );
}

const fmt1 = (lang: string, n: number) => new Intl.NumberFormat(lang === "ar" ? "ar-AE-u-nu-latn" : "en-AE", { maximumFractionDigits: 2, minimumFractionDigits: 1 }).format(n);

function Stars({ rating }: { rating: number }) {
  const { t } = useI18n();
  return (
    <Text component="span" c="orange.9" fw={700} aria-label={t("reviews.starsOf", { n: rating })} role="img">
      {"★".repeat(rating)}
      <Text component="span" c="gray.6" aria-hidden>
        {"★".repeat(Math.max(0, 5 - rating))}
      </Text>
    </Text>
  );
}

function Stats({ storeId }: { storeId: string }) {
  const { t, lang } = useI18n();
  const stats = useQuery(api.stores.reviews.getStoreReviewStats, { storeId });
  if (stats === undefined) return <Loading />;
  if (stats === null || stats.totalReviews === 0) {
    return (
      <Card withBorder data-testid="review-stats">
        <Text>{t("reviews.noStats")}</Text>
      </Card>
    );
  }
  const starsLabel = (n: number) => (n === 1 ? t("reviews.oneStar") : t("reviews.stars", { n }));
  const figures: [MessageKey, string, string][] = [
    ["reviews.average", fmt1(lang, stats.averageRating), "average"],
    ["reviews.bayesian", fmt1(lang, stats.bayesianAverage), "bayesian"],
    ["reviews.total", String(stats.totalReviews), "total"],
    ["reviews.verified", String(stats.verifiedReviews), "verified"],
  ];
  return (
    <Card withBorder component="section" aria-labelledby="stats-title" data-testid="review-stats">
      <Stack>
        <Title order={3} id="stats-title">
          {t("reviews.stats")}
        </Title>
        <SimpleGrid cols={{ base: 2, md: 4 }}>
          {figures.map(([label, value, id]) => (
            <div key={id}>
              <Text size="sm">{t(label)}</Text>
              <Text size="xl" fw={700} data-testid={`stat-${id}`}>
                {value}
              </Text>
              {id === "bayesian" && (
                <Text size="xs" c="dimmed">
                  {t("reviews.bayesianHint", { n: stats.bayesianPrior.reviews, mean: fmt1(lang, stats.bayesianPrior.mean) })}
                </Text>
              )}
            </div>
          ))}
        </SimpleGrid>
        <Title order={4} id="histogram-title">
          {t("reviews.histogram")}
        </Title>
        <Stack gap={6} aria-labelledby="histogram-title" role="list" data-testid="histogram">
          {[5, 4, 3, 2, 1].map((n) => {
            const count = stats.ratingDistribution[String(n)] ?? 0;
            const pct = stats.totalReviews ? (100 * count) / stats.totalReviews : 0;
            return (
              <Group key={n} gap="sm" wrap="nowrap" role="listitem" data-rating={n} data-count={count}>
                <Text size="sm" w={80}>
                  {starsLabel(n)}
                </Text>
                <Progress value={pct} color="orange.9" style={{ flex: 1 }} aria-label={starsLabel(n)} />
                <Text size="sm" w={40} ta="end">
                  {count}
                </Text>
              </Group>
            );
          })}
        </Stack>
      </Stack>
    </Card>
  );
}

// The reviews, by the server's filters (a rating, a period of the days they
// were written: any date unless chosen) and sort, in numbered pages over the
// server's cursors. The sorts by rating or helpfulness go with any date only
// (the server refuses them with a period: no index serves both).
function ReviewList({ storeId }: { storeId: string }) {
  const { t } = useI18n();
  const [sortBy, setSortBy] = useState<(typeof SORTS)[number]>("newest");
  const [rating, setRating] = useState<string | null>(null);
  const [range, setRange] = useState<OptionalRange>(null);
  const period = periodArgs(range);
  const byDate = sortBy === "newest" || sortBy === "oldest";
  const args = { storeId, sortBy, ratingFilter: rating ? Number(rating) : undefined, ...(period ?? {}) };
  const pager = usePager(JSON.stringify(args));
  const page = useQuery(api.stores.reviews.getStoreReviews, period ? { ...args, paginationOpts: { numItems: PAGE, cursor: pager.cursor } } : "skip");
  return (
    <Stack>
      <Group align="flex-end" wrap="wrap">
        <Select
          label={t("reviews.sort")}
          data={SORTS.map((s) => ({ value: s, label: t(`reviews.sort.${s}` as MessageKey), disabled: range !== null && s !== "newest" && s !== "oldest" }))}
          value={sortBy}
          onChange={(v) => v && setSortBy(v as (typeof SORTS)[number])}
          allowDeselect={false}
          w={{ base: "100%", xs: 200 }}
          data-testid="review-sort"
        />
        <Select
          label={t("reviews.rating")}
          placeholder={t("reviews.anyRating")}
          data={[5, 4, 3, 2, 1].map((n) => ({ value: String(n), label: n === 1 ? t("reviews.oneStar") : t("reviews.stars", { n }) }))}
          value={rating}
          onChange={setRating}
          clearable
          w={{ base: "100%", xs: 200 }}
          data-testid="review-rating"
        />
      </Group>
      <OptionalPeriodFilter
        value={range}
        onChange={(r) => {
          setRange(r);
          if (r !== null && !byDate) setSortBy("newest");
        }}
        testId="reviews-range"
      />
      {!byDate && <Text size="xs">{t("lists.ratingSortNoPeriod")}</Text>}
      {period === null ? null : page === undefined ? (
        <Loading />
      ) : (
        <Stack gap="sm">
          <Pager pager={pager} page={page} pageSize={PAGE} />
          {page.page.length === 0 ? (
            <Text data-testid="reviews-empty">{t("reviews.none")}</Text>
          ) : (
            <Stack data-testid="reviews" data-sort={sortBy}>
              {page.page.map((r) => (
                <ReviewCard key={r._id} review={r} />
              ))}
            </Stack>
          )}
        </Stack>
      )}
    </Stack>
  );
}

function ReviewCard({ review: r }: { review: Review }) {
  const { t, dateTime } = useI18n();
  const [editing, setEditing] = useState(false);
  const titleId = `review-${r._id}`;
  return (
    <Card withBorder component="article" aria-labelledby={titleId} data-review={r._id}>
      <Stack gap="xs">
        <Group justify="space-between" wrap="wrap">
          <Group gap="sm">
            <Stars rating={r.rating} />
            <Text fw={600} id={titleId}>
              <UserText>{r.title || r.customer.name}</UserText>
            </Text>
            {r.isVerifiedPurchase && (
              <Badge variant="light" color="teal">
                {t("reviews.verifiedBadge")}
              </Badge>
            )}
          </Group>
          <Text size="sm">
            <UserText testId="review-author">{r.customer.name}</UserText> · <bdi>{dateTime(r._creationTime)}</bdi>
            {r.isEdited ? ` · ${t("reviews.edited")}` : ""}
          </Text>
        </Group>
        {r.comment && <UserParagraph data-testid="review-comment">{r.comment}</UserParagraph>}
        {r.photoUrls.length > 0 && (
          <Group gap="xs">
            {r.photoUrls.map((u, i) => (
              <a key={u} href={u} target="_blank" rel="noreferrer">
                <Image src={u} alt={t("reviews.photo", { n: i + 1, name: r.customer.name })} w={96} h={96} fit="cover" radius="sm" />
              </a>
            ))}
          </Group>
        )}
        {r.helpfulCount > 0 && <Text size="xs">{t("reviews.helpful", { n: r.helpfulCount })}</Text>}
        {r.storeResponse && !editing && (
          <Card bg="gray.0" p="sm" data-testid="store-response">
            <Text size="sm" fw={600}>
              {t("reviews.response")} · {t("reviews.replied", { date: dateTime(r.storeResponse.updatedAt ?? r.storeResponse.respondedAt) })}
            </Text>
            <UserParagraph size="sm">{r.storeResponse.comment}</UserParagraph>
          </Card>
        )}
        {editing ? (
          <Reply review={r} onDone={() => setEditing(false)} />
        ) : (
          <Button size="xs" variant="default" w="fit-content" onClick={() => setEditing(true)} data-testid="reply">
            {r.storeResponse ? t("reviews.editReply") : t("reviews.reply")}
          </Button>
        )}
      </Stack>
    </Card>
  );
}

// Adds the store's reply, or updates it when there is one. The server's
// refusal (too long, say) shows under the text; the text stays.
function Reply({ review, onDone }: { review: Review; onDone(): void }) {
  const { t } = useI18n();
  const update = review.storeResponse != null;
  const form = useActionForm({
    initial: { comment: review.storeResponse?.comment ?? "" },
    mutation: update ? api.stores.reviews.updateStoreResponse : api.stores.reviews.addStoreResponse,
    validate: { comment: (v) => (v.trim() ? null : t("required")) },
    args: (v) => ({ reviewId: review._id, comment: v.comment.trim() }),
    onDone,
  });
  return (
    <form noValidate onSubmit={(e) => void form.submit(e)}>
      <Stack gap="xs">
        <Textarea label={t("reviews.replyLabel", { name: review.customer.name })} autosize minRows={2} required {...form.input("comment")} />
        <FormError form={form} />
        <Group gap="xs">
          <Button type="submit" size="xs" loading={form.pending}>
            {update ? t("reviews.update") : t("reviews.send")}
          </Button>
          <Button size="xs" variant="default" onClick={onDone} disabled={form.pending}>
            {t("cancel")}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
