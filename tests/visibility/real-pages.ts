// Small but real-looking pages in the shapes a differential run on saved real pages found the check misreading:
// news text in Chinese, Japanese, Korean and Arabic, a page over 1 MB whose article comes after the first
// 512 KiB, and a news article whose <head> an <iframe> ends early. Each is plain HTML as a site would serve it.

const ZH_PARAGRAPHS = [
  '北京时间周二上午，国家统计局发布了最新的经济数据。数据显示，今年前三季度国内生产总值同比增长百分之五，消费和投资保持稳定。',
  '专家表示，随着一系列政策措施陆续落地，市场信心正在逐步恢复，但外部环境依然复杂多变，仍需密切关注全球需求的变化。',
  '在科技领域，多家企业加大了对人工智能和新能源汽车的研发投入，相关产业链的就业人数明显增加。',
  '与此同时，城市居民的收入水平继续提高，农村地区的基础设施建设也取得了新的进展。',
];
const JA_PARAGRAPHS = [
  '東京都は火曜日、来年度の予算案の概要を発表した。子育て支援と防災対策に重点を置き、過去最大の規模となる見通しだ。',
  '知事は記者会見で「都民の安全と暮らしを守るため、必要な施策を着実に進める」と述べた。',
  '一方、専門家からは財政の持続性を懸念する声も上がっており、今後の議会での審議が注目される。',
  '新しい予算案には、高齢者向けのサービスの拡充や、公共交通機関のバリアフリー化も盛り込まれている。',
];
const KO_PARAGRAPHS = [
  '서울시는 화요일 내년도 예산안을 발표했다. 시는 저출생 대책과 대중교통 개선에 예산을 집중적으로 배정할 계획이라고 밝혔다.',
  '시장은 기자회견에서 시민의 일상을 지키기 위해 필요한 정책을 차질 없이 추진하겠다고 말했다.',
  '전문가들은 재정 건전성에 대한 우려도 함께 제기하며 시의회의 심의 과정을 지켜봐야 한다고 강조했다.',
];
const AR_PARAGRAPHS = [
  'أعلنت وزارة الاقتصاد يوم الثلاثاء عن نتائج المسح السنوي للشركات الصغيرة والمتوسطة في جميع أنحاء البلاد.',
  'وأظهرت النتائج أن عدد الشركات الجديدة ارتفع بنسبة كبيرة مقارنة بالعام الماضي، خاصة في قطاعي التجارة الإلكترونية والخدمات.',
  'وقال الوزير في مؤتمر صحفي إن الحكومة ستواصل دعم رواد الأعمال وتسهيل الحصول على التمويل.',
];

/** A news article in `lang`: its paragraphs `times` over, in a body with a header and a footer, as sites serve them. */
function article(lang: string, dir: 'ltr' | 'rtl', title: string, paragraphs: readonly string[], times: number): string {
  const body = Array.from({ length: times }, () => paragraphs.map((p) => `<p>${p}</p>`).join('\n')).join('\n');
  return `<!DOCTYPE html>
<html lang="${lang}" dir="${dir}">
<head>
<meta charset="utf-8">
<title>${title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/assets/site.css">
</head>
<body>
<header><nav><a href="/">${title.split(' ')[0]}</a></nav></header>
<main><article><h1>${title}</h1>
${body}
</article></main>
<footer><small>© 2026</small></footer>
<script src="/assets/site.js" defer></script>
</body>
</html>
`;
}

export const ZH_NEWS = article('zh-CN', 'ltr', '国家统计局发布前三季度经济数据', ZH_PARAGRAPHS, 3);
export const JA_NEWS = article('ja', 'ltr', '東京都、来年度予算案の概要を発表', JA_PARAGRAPHS, 3);
export const KO_NEWS = article('ko', 'ltr', '서울시, 내년도 예산안 발표', KO_PARAGRAPHS, 3);
export const AR_NEWS = article('ar', 'rtl', 'وزارة الاقتصاد تعلن نتائج المسح السنوي', AR_PARAGRAPHS, 3);

/**
 * A shop page over 1 MB whose product text comes after the first 512 KiB: a head of inline state (a framework's
 * hydration data, as many shops inline) and then the article, with a `<h1>`.
 */
export function bigShopPage(stateBytes = 700 * 1024): string {
  const item = (i: number) => `{"id":${i},"sku":"SKU-${String(i).padStart(6, '0')}","price":${(i % 97) + 0.99},"stock":${i % 13}}`;
  const items: string[] = [];
  let size = 0;
  for (let i = 0; size < stateBytes; i++) {
    const one = item(i);
    items.push(one);
    size += one.length + 1;
  }
  const words = Array.from({ length: 400 }, (_, i) => `feature${i}`).join(' ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Trail running shoes – Example Outdoor</title>
<meta name="description" content="Lightweight trail running shoes with a grippy sole, a rock plate and a waterproof upper, in six colours.">
<link rel="canonical" href="https://shop.test/trail-shoes">
</head>
<body>
<script id="__STATE__" type="application/json">{"items":[${items.join(',')}]}</script>
<main><h1>Trail running shoes</h1><p>${words}</p></main>
</body>
</html>
`;
}

/**
 * A news article whose <head> an <iframe> (a tag manager's noscript fallback, as on BBC articles) ends early:
 * the description and the canonical after it are in the body for parse5, browsers and Google.
 */
export const BROKEN_HEAD_ARTICLE = `<!DOCTYPE html>
<html lang="en-GB">
<head>
<meta charset="utf-8">
<title>Storm warning issued for coastal areas - Example News</title>
<iframe src="https://www.googletagmanager.com/ns.html?id=GTM-XXXX" height="0" width="0" style="display:none;visibility:hidden"></iframe>
<meta name="description" content="Forecasters have issued an amber warning for strong winds along the coast from Tuesday evening into Wednesday.">
<link rel="canonical" href="https://news.test/weather/storm-warning">
<meta name="robots" content="max-snippet:-1">
</head>
<body>
<main><h1>Storm warning issued for coastal areas</h1>
<p>${Array.from({ length: 300 }, (_, i) => `forecast${i}`).join(' ')}</p></main>
</body>
</html>
`;
