/// What one transform of a compiled template does when swift-mustache reaches it.
///
/// `TemplateCompiler` turns each Handlebars tag into a Mustache tag on the current
/// context, `{{hN(.)}}`, `{{#hN(.)}}…{{/hN(.)}}` or `{{^hN(.)}}…{{/hN(.)}}`, and the
/// instruction at index N says what `hN` returns for it: swift-mustache keeps the block
/// structure and the iteration; the expressions and helpers are ours.
enum TemplateInstruction: Sendable, Equatable {
    /// `{{expr}}`, `{{{expr}}}`: the value, as text.
    case value(TemplateExpression)
    /// The template's own text (and `\{{name}}`, which writes `{{name}}`).
    case literal(String)
    /// `{{#if}}`, `{{#unless}}` (`negated`), `{{#eq a b}}`: true or false.
    case condition(TemplateExpression, negated: Bool)
    /// `{{#each}}`: the items, each one the context of one pass. `bodyLength` is the text
    /// one pass writes at least: passes that could not fit the output budget never start.
    case each(TemplateExpression, blockParams: [String], bodyLength: Int)
    /// `{{#path}}`, `{{^path}}`: Mustache's own section on a value (a list repeats, an
    /// object becomes the context, a falsy value skips).
    case section(TemplateExpression, bodyLength: Int)
}

/// The helpers templates may call: WireMock's names, the subset this server renders.
enum TemplateHelpers {
    /// Called inside `{{ }}` or `( )`.
    static let valueHelpers: Set<String> = ["now", "randomValue", "randomInt", "jsonPath", "eq"]
    /// Called as `{{#name}}…{{/name}}`.
    static let blockHelpers: Set<String> = ["if", "unless", "each", "eq"]
    /// The hash arguments each value helper takes.
    static let hashArguments: [String: Set<String>] = [
        "now": ["format", "offset", "timezone"],
        "randomValue": ["length", "type", "uppercase"],
        "randomInt": ["lower", "upper"],
        "jsonPath": ["default"],
        "eq": ["yes", "no"],
    ]
    /// What a refusal lists.
    static let supportedList =
        "request.*, jsonPath, now, randomValue, randomInt, eq, #if, #unless, #each, #eq, else"

    /// The positional arguments each value helper takes.
    static let positionalCount: [String: Int] = ["now": 0, "randomValue": 0, "randomInt": 0, "jsonPath": 2, "eq": 2]

    /// Helpers WireMock or Handlebars know and this server does not render: a bare
    /// `{{hostname}}` names one of them rather than a missing value, and is refused as any
    /// helper with arguments is.
    static let knownElsewhere: Set<String> = [
        "with", "lookup", "log", "hostname", "date", "parseDate", "truncateDate", "dateFormat", "isToday",
        "trim", "capitalize", "capitalizeFirst", "abbreviate", "base64", "urlEncode", "formData", "regexExtract",
        "size", "pickRandom", "math", "range", "array", "contains", "matches", "xPath", "soapXPath", "parseJson",
        "toJson", "formatJson", "formatXml", "split", "join", "val", "assign", "arrayJoin", "arrayAdd",
        "arrayRemove", "jsonMerge", "jsonRemove", "jsonArrayAdd", "jsonSort", "systemValue", "randomDecimal",
        "random", "neq", "gt", "gte", "lt", "lte", "and", "or", "not", "upper", "lower", "center", "cut",
        "defaultIfEmpty", "ljust", "rjust", "substring", "slugify", "stringFormat", "stripTags", "wordWrap",
        "yesno", "numberFormat", "replace", "length", "first", "last", "sort", "uuid", "faker", "fileName",
        "jwt", "jwks", "escape",
    ]
}
