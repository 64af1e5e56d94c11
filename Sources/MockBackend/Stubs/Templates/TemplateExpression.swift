import MockBackendAPI

/// One Handlebars expression as it stands inside `{{ }}` or a subexpression's `( )`: a
/// path into the data (`request.pathSegments.[1]`, `this`, `../name`, `@index`), a literal
/// (`'text'`, `"text"`, `42`, `true`, `null`), or a helper call with positional and hash
/// arguments (`jsonPath request.body '$.id' default='none'`).
indirect enum TemplateExpression: Sendable, Equatable {
    case path(TemplatePath)
    case literal(JSONValue)
    case call(TemplateCall)
}

/// A path into the data a template reads.
struct TemplatePath: Sendable, Equatable {
    enum Start: Sendable, Equatable {
        /// The current context (`name`, `this.name`, `./name`); `parentHops` `../` first.
        case context(parentHops: Int)
        /// `@root`: the request model.
        case root
        /// `@index`, `@key`, `@first`, `@last`: where an `{{#each}}` is.
        case data(String)
    }

    var start: Start
    /// What follows the start, segment by segment (`[1]` and `[X-Id]` are segments too).
    var segments: [String]
    /// As written, for messages and for matching a block's close tag.
    var text: String

    /// A plain name such as `now` or `jsonPath`: what a helper call starts with.
    var helperName: String? {
        guard case .context(0) = start, segments.count == 1, !text.hasPrefix("this"), !text.hasPrefix("[") else {
            return nil
        }
        return segments[0]
    }
}

/// A helper call: `name params… key=value…`.
struct TemplateCall: Sendable, Equatable {
    var helper: String
    var params: [TemplateExpression]
    var hash: [String: TemplateExpression]
}

/// The inside of one tag, read but not yet judged: its first expression (a helper's name
/// or a path), what follows, and an `{{#each}}`'s `as |item index|` names.
struct TemplateTagContent: Sendable, Equatable {
    var head: TemplateExpression
    var params: [TemplateExpression]
    var hash: [String: TemplateExpression]
    var blockParams: [String]
}
