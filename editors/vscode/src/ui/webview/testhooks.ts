// The page's test hooks, answered only when the extension runs its
// end-to-end harness (body data-test="1"): click a real element, scroll
// one, or report what the page shows and how it is laid out.
import type { FromWebview, ToWebview } from "../protocol.js";
import type { Composer } from "./composer.js";

interface Page {
  post: (m: FromWebview) => void;
  input: HTMLTextAreaElement;
  transcript: HTMLElement;
  scroller: HTMLElement;
  banner: HTMLElement;
  stop: HTMLButtonElement;
  composer: Composer;
}

export function testHooks(page: Page): (m: Extract<ToWebview, { type: "test" }>) => void {
  const { post, input, transcript, scroller, banner, stop, composer } = page;
  const measure = () => measurePage(transcript, scroller, stop);
  return (m) => {
    if (document.body.dataset.test !== "1") return;
    if (m.op === "type") {
      // as a person types: the text, then Enter in the box
      input.focus();
      input.value = m.text;
      input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
      post({ type: "test", id: m.id, result: true });
    } else if (m.op === "key") {
      // typing into the box (an input event), then a key if asked
      input.focus();
      input.value = m.text;
      input.setSelectionRange(m.text.length, m.text.length);
      input.dispatchEvent(new Event("input", { bubbles: true }));
      if (m.key) input.dispatchEvent(new KeyboardEvent("keydown", { key: m.key, bubbles: true, cancelable: true }));
      post({ type: "test", id: m.id, result: composer.slashState() });
    } else if (m.op === "drop") {
      // a drop on the footer, as VS Code's Explorer sends it (uri-list)
      const dt = new DataTransfer();
      dt.setData("text/uri-list", m.uris.join("\r\n"));
      document.querySelector(".footer")!.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
      post({ type: "test", id: m.id, result: composer.slashState() });
    } else if (m.op === "scroll") {
      const target = document.querySelector<HTMLElement>(m.selector);
      if (target) target.scrollTop = m.top;
      post({ type: "test", id: m.id, result: target ? target.scrollTop : null });
    } else if (m.op === "measure") {
      post({ type: "test", id: m.id, result: measure() });
    } else if (m.op === "click") {
      const target = document.querySelector<HTMLElement>(m.selector);
      target?.click();
      post({ type: "test", id: m.id, result: !!target });
    } else {
      const cards = [...document.querySelectorAll<HTMLElement>(".card")].map((c) => ({
        id: c.dataset.id,
        type: c.dataset.type,
        status: c.dataset.status,
        buttons: [...c.querySelectorAll<HTMLButtonElement>("button.permission")].map((b) => b.textContent),
        remembers: [...c.querySelectorAll<HTMLElement>(".permission-bar .remembers")].map((r) => `${r.dataset.kind}: ${r.textContent}`),
        diffLines: [...c.querySelectorAll(".diff-line")].map((l) => l.textContent),
        hunks: [...c.querySelectorAll(".hunk")].map((l) => l.textContent),
        command: ((cmd) => cmd && { text: cmd.textContent, wraps: cmd.scrollWidth <= cmd.clientWidth, font: getComputedStyle(cmd).fontFamily,
          description: c.querySelector(".command-description")?.textContent ?? null })(c.querySelector<HTMLElement>("pre.command")),
        terminal: c.querySelector(".terminal-output")?.textContent ?? null,
        scroll: ((o) => o && { top: o.scrollTop, bottom: o.scrollHeight - o.clientHeight })(c.querySelector<HTMLElement>(".terminal-output")),
        text: c.textContent,
        ask: c.querySelector(".permission-bar .ask")?.textContent ?? null,
        shell: [...c.querySelectorAll("pre.command [class^='sh-']")].map((x) => `${x.className}:${x.textContent}`),
        folded: c.classList.contains("folded"),
        bodyShown: [...c.children].filter((x) => !x.classList.contains("card-head") && !x.classList.contains("permission-bar")).some((x) => (x as HTMLElement).offsetHeight > 0),
        lines: c.querySelectorAll(".read .line").length,
        more: c.querySelector("button.more")?.textContent ?? null,
        ...diagnosticsState(c),
      }));
      const html = {
        imgs: transcript.querySelectorAll("img, script, iframe").length,
        hrefs: [...transcript.querySelectorAll("a[href]")].map((a) => a.getAttribute("href") ?? ""),
      };
      const bannerText = banner.classList.contains("hidden") ? null : banner.textContent;
      post({ type: "test", id: m.id, result: { cards, text: transcript.innerText, html, banner: bannerText, page: pageState(transcript, scroller, composer) } });
    }
  };
}

/** measurePage reports the geometry the end-to-end test asserts: where each
 * underscore's ink lies against the box that clips it, how wide a leading
 * tab is in spaces, the colours of a keyword and of plain code, and
 * whether anything overflows the transcript sideways. */
function measurePage(transcript: HTMLElement, scroller: HTMLElement, stop: HTMLButtonElement): unknown {
  const canvas = document.createElement("canvas").getContext("2d")!;
  const underscores: Array<{ text: string; inkBottom: number; clipBottom: number }> = [];
  const tabs: Array<{ text: string; tabPx: number; spacePx: number }> = [];
  const colours: Array<{ kw: string; plain: string }> = [];
  for (const code of document.querySelectorAll<HTMLElement>(".line > .code, .diff-line > .code")) {
    const node = [...code.childNodes].find((n) => n.nodeType === Node.TEXT_NODE && n.textContent!.includes("_")) ??
      [...code.querySelectorAll("span")].map((s) => s.firstChild).find((n) => n?.textContent?.includes("_"));
    const style = getComputedStyle(code);
    canvas.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    if (node) {
      const at = node.textContent!.indexOf("_");
      const r = document.createRange();
      r.setStart(node, at);
      r.setEnd(node, at + 1);
      const box = r.getBoundingClientRect();
      const m = canvas.measureText("_");
      const baseline = box.bottom - m.fontBoundingBoxDescent;
      let clip: HTMLElement = code;
      while (clip.parentElement && getComputedStyle(clip).overflowY === "visible" && !/paint|content|strict/.test(getComputedStyle(clip).contain)) clip = clip.parentElement;
      underscores.push({ text: code.textContent!, inkBottom: baseline + m.actualBoundingBoxDescent, clipBottom: clip.getBoundingClientRect().bottom });
    }
    const first = code.firstChild;
    if (first?.nodeType === Node.TEXT_NODE && first.textContent!.startsWith("\t")) {
      const r = document.createRange();
      r.setStart(first, 0);
      r.setEnd(first, 1);
      tabs.push({ text: code.textContent!, tabPx: r.getBoundingClientRect().width, spacePx: canvas.measureText(" ").width });
    }
    const kw = code.querySelector(".tok-kw");
    if (kw) colours.push({ kw: getComputedStyle(kw).color, plain: style.color });
  }
  const wide = [...transcript.querySelectorAll<HTMLElement>(".block")].filter((b) => b.scrollWidth > b.clientWidth + 1).map((b) => b.textContent!.slice(0, 40));
  return {
    theme: document.body.className,
    tabSize: getComputedStyle(document.querySelector(".line > .code") ?? document.body).tabSize,
    underscores, tabs, colours, wide,
    scroller: { scrollWidth: scroller.scrollWidth, clientWidth: scroller.clientWidth },
    stop: stop.disabled,
  };
}


/** pageState reports what sits around the transcript: the pinned plan
 * (and whether it is above the prompt box and outside what scrolls), the
 * chat list, the notices, an empty chat's offer, the answers' code blocks
 * and references. */
function pageState(transcript: HTMLElement, scroller: HTMLElement, composer: Composer): unknown {
  const pin = document.querySelector<HTMLElement>(".plan-pin");
  const input = document.querySelector<HTMLElement>(".input");
  const pinBox = pin?.getBoundingClientRect();
  const inputBox = input?.getBoundingClientRect();
  return {
    plan: pin && !pin.classList.contains("hidden") ? {
      items: [...pin.querySelectorAll("li")].map((li) => ({ text: li.querySelector(".plan-text")?.textContent, checked: (li.querySelector("input") as HTMLInputElement | null)?.checked, cls: li.className })),
      summary: pin.querySelector("summary")?.textContent ?? null,
      aboveInput: !!pinBox && !!inputBox && pinBox.height > 0 && pinBox.bottom <= inputBox.top + 0.5,
      inScroller: scroller.contains(pin),
    } : null,
    chats: [...document.querySelectorAll<HTMLOptionElement>("select.chats option")].map((o) => ({ id: o.value, title: o.textContent, selected: o.selected })),
    pickers: [...document.querySelectorAll<HTMLSelectElement>("select.picker")].map((p) => ({ id: p.dataset.picker, value: p.value, title: p.title, options: [...p.options].map((o) => ({ value: o.value, title: o.title })) })),
    headerRows: document.querySelectorAll(".header-row").length,
    header: ((h) => h && { height: h.getBoundingClientRect().height, overflow: h.scrollWidth > h.clientWidth + 1, rowPickers: [...h.querySelectorAll<HTMLSelectElement>(".header-row > select.picker")].map((p) => p.dataset.picker),
      menuPickers: [...h.querySelectorAll<HTMLSelectElement>(".header-menu select.picker")].map((p) => p.dataset.picker) })(document.querySelector<HTMLElement>(".header")),
    chips: [...document.querySelectorAll(".attachments .chip")].map((c) => c.textContent),
    notices: [...transcript.querySelectorAll<HTMLDetailsElement>("details.notice")].map((d) => ({ line: d.querySelector("summary")?.textContent, open: d.open, items: d.querySelectorAll(".notice-item").length, height: d.getBoundingClientRect().height })),
    empty: ((e) => e && { text: e.textContent, examples: [...e.querySelectorAll("button.example")].map((b) => b.textContent) })(document.querySelector(".empty")),
    codeBlocks: [...transcript.querySelectorAll(".codeblock")].map((c) => ({ buttons: [...c.querySelectorAll(".code-actions button")].map((b) => b.textContent), code: c.querySelector("code")?.textContent,
      kw: ((k) => k && getComputedStyle(k).color)(c.querySelector(".tok-kw")), plain: getComputedStyle(c.querySelector("code")!).color, spans: c.querySelectorAll("[class^='tok-']").length })),
    refs: [...transcript.querySelectorAll<HTMLAnchorElement>("a.ref")].map((a) => ({ text: a.textContent, path: a.dataset.path, line: a.dataset.line })),
    slash: composer.slashState(),
    slashAboveInput: ((p, i) => !!p && !!i && !p.classList.contains("hidden") && p.getBoundingClientRect().bottom <= i.getBoundingClientRect().top + 0.5)(document.querySelector<HTMLElement>(".slash"), input),
    input: (document.querySelector(".input") as HTMLTextAreaElement | null)?.value ?? null,
    users: [...transcript.querySelectorAll(".block.user")].map((u) => ({ seq: Number((u as HTMLElement).dataset.seq), text: u.querySelector(".text")?.textContent ?? "", restore: !!u.querySelector("button.restore") })),
    changes: ((p) => p && !p.classList.contains("hidden") ? {
      summary: p.querySelector(".changes-summary")?.textContent ?? "",
      undoAll: !!p.querySelector("button.undo-all"),
      files: [...p.querySelectorAll<HTMLElement>(".changed-file")].map((f) => ({ path: f.dataset.path, text: f.textContent })),
    } : null)(document.querySelector<HTMLElement>(".changes-pin")),
    focused: document.activeElement?.className ?? null,
  };
}

/** diagnosticsState: a card's diagnostic rows, their message colours, the
 * theme's error and warning colours resolved the same way, and whether the
 * list comes after the diff. */
function diagnosticsState(c: HTMLElement): Record<string, unknown> {
  const colourOf = (v: string) => {
    const probe = document.createElement("span");
    probe.style.color = `var(${v})`;
    document.body.append(probe);
    const got = getComputedStyle(probe).color;
    probe.remove();
    return got;
  };
  const list = c.querySelector(".diagnostics");
  const diff = c.querySelector(".diff");
  return {
    diagnostics: [...c.querySelectorAll<HTMLElement>(".diagnostic")].map((d) => ({
      text: d.textContent,
      severity: d.dataset.severity,
      colour: getComputedStyle(d.querySelector(".diagnostic-message")!).color,
    })),
    diagnosticsAfterDiff: !!list && !!diff && !!(diff.compareDocumentPosition(list) & Node.DOCUMENT_POSITION_FOLLOWING),
    themeColours: list ? { error: colourOf("--vscode-editorError-foreground"), warning: colourOf("--vscode-editorWarning-foreground") } : undefined,
  };
}
