# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

"""Every tool's input and output TypedDict (`<Tool>Input`, `<Tool>Output`), one import
away: handlers import them from here."""

from .audit_log_input import AuditLogInput
from .audit_log_output import AuditLogOutput
from .catalog_add_input import CatalogAddInput
from .catalog_add_output import CatalogAddOutput
from .catalog_categories_input import CatalogCategoriesInput
from .catalog_categories_output import CatalogCategoriesOutput
from .catalog_get_video_input import CatalogGetVideoInput
from .catalog_get_video_output import CatalogGetVideoOutput
from .catalog_import_input import CatalogImportInput
from .catalog_import_output import CatalogImportOutput
from .catalog_remove_input import CatalogRemoveInput
from .catalog_remove_output import CatalogRemoveOutput
from .catalog_search_input import CatalogSearchInput
from .catalog_search_output import CatalogSearchOutput
from .content_analyze_input import ContentAnalyzeInput
from .content_analyze_output import ContentAnalyzeOutput
from .content_batch_analyze_input import ContentBatchAnalyzeInput
from .content_batch_analyze_output import ContentBatchAnalyzeOutput
from .content_extract_input import ContentExtractInput
from .content_extract_output import ContentExtractOutput
from .delete_indexed_video_input import DeleteIndexedVideoInput
from .delete_indexed_video_output import DeleteIndexedVideoOutput
from .document_delete_input import DocumentDeleteInput
from .document_delete_output import DocumentDeleteOutput
from .document_ingest_input import DocumentIngestInput
from .document_ingest_output import DocumentIngestOutput
from .document_list_input import DocumentListInput
from .document_list_output import DocumentListOutput
from .document_search_input import DocumentSearchInput
from .document_search_output import DocumentSearchOutput
from .get_all_channel_transcripts_input import GetAllChannelTranscriptsInput
from .get_all_channel_transcripts_output import GetAllChannelTranscriptsOutput
from .get_indexed_videos_input import GetIndexedVideosInput
from .get_indexed_videos_output import GetIndexedVideosOutput
from .index_channel_transcripts_input import IndexChannelTranscriptsInput
from .index_channel_transcripts_output import IndexChannelTranscriptsOutput
from .index_media_files_input import IndexMediaFilesInput
from .index_media_files_output import IndexMediaFilesOutput
from .index_transcript_files_input import IndexTranscriptFilesInput
from .index_transcript_files_output import IndexTranscriptFilesOutput
from .infra_cache_input import InfraCacheInput
from .infra_cache_output import InfraCacheOutput
from .infra_configure_input import InfraConfigureInput
from .infra_configure_output import InfraConfigureOutput
from .knowledge_ask_input import KnowledgeAskInput
from .knowledge_ask_output import KnowledgeAskOutput
from .knowledge_fetch_input import KnowledgeFetchInput
from .knowledge_fetch_output import KnowledgeFetchOutput
from .knowledge_ingest_input import KnowledgeIngestInput
from .knowledge_ingest_output import KnowledgeIngestOutput
from .knowledge_reembed_input import KnowledgeReembedInput
from .knowledge_reembed_output import KnowledgeReembedOutput
from .knowledge_related_input import KnowledgeRelatedInput
from .knowledge_related_output import KnowledgeRelatedOutput
from .knowledge_schema_input import KnowledgeSchemaInput
from .knowledge_schema_output import KnowledgeSchemaOutput
from .knowledge_search_input import KnowledgeSearchInput
from .knowledge_search_output import KnowledgeSearchOutput
from .knowledge_stats_input import KnowledgeStatsInput
from .knowledge_stats_output import KnowledgeStatsOutput
from .marathon_create_input import MarathonCreateInput
from .marathon_create_output import MarathonCreateOutput
from .marathon_delete_input import MarathonDeleteInput
from .marathon_delete_output import MarathonDeleteOutput
from .marathon_get_input import MarathonGetInput
from .marathon_get_output import MarathonGetOutput
from .marathon_list_input import MarathonListInput
from .marathon_list_output import MarathonListOutput
from .media_contact_sheet_input import MediaContactSheetInput
from .media_contact_sheet_output import MediaContactSheetOutput
from .media_frames_input import MediaFramesInput
from .media_frames_output import MediaFramesOutput
from .media_scenes_input import MediaScenesInput
from .media_scenes_output import MediaScenesOutput
from .media_screen_text_input import MediaScreenTextInput
from .media_screen_text_output import MediaScreenTextOutput
from .name_speaker_input import NameSpeakerInput
from .name_speaker_output import NameSpeakerOutput
from .playlist_create_input import PlaylistCreateInput
from .playlist_create_output import PlaylistCreateOutput
from .playlist_delete_input import PlaylistDeleteInput
from .playlist_delete_output import PlaylistDeleteOutput
from .playlist_get_input import PlaylistGetInput
from .playlist_get_output import PlaylistGetOutput
from .playlist_list_input import PlaylistListInput
from .playlist_list_output import PlaylistListOutput
from .playlist_update_input import PlaylistUpdateInput
from .playlist_update_output import PlaylistUpdateOutput
from .queue_add_video_input import QueueAddVideoInput
from .queue_add_video_output import QueueAddVideoOutput
from .queue_add_videos_input import QueueAddVideosInput
from .queue_add_videos_output import QueueAddVideosOutput
from .queue_advance_input import QueueAdvanceInput
from .queue_advance_output import QueueAdvanceOutput
from .queue_apply_playlist_input import QueueApplyPlaylistInput
from .queue_apply_playlist_output import QueueApplyPlaylistOutput
from .queue_clear_input import QueueClearInput
from .queue_clear_output import QueueClearOutput
from .queue_move_input import QueueMoveInput
from .queue_move_output import QueueMoveOutput
from .queue_remove_input import QueueRemoveInput
from .queue_remove_output import QueueRemoveOutput
from .queue_status_input import QueueStatusInput
from .queue_status_output import QueueStatusOutput
from .research_assess_evidence_input import ResearchAssessEvidenceInput
from .research_assess_evidence_output import ResearchAssessEvidenceOutput
from .research_author_search_input import ResearchAuthorSearchInput
from .research_author_search_output import ResearchAuthorSearchOutput
from .research_deep_input import ResearchDeepInput
from .research_deep_output import ResearchDeepOutput
from .research_document_input import ResearchDocumentInput
from .research_document_output import ResearchDocumentOutput
from .research_paper_citations_input import ResearchPaperCitationsInput
from .research_paper_citations_output import ResearchPaperCitationsOutput
from .research_paper_details_input import ResearchPaperDetailsInput
from .research_paper_details_output import ResearchPaperDetailsOutput
from .research_paper_recommendations_input import ResearchPaperRecommendationsInput
from .research_paper_recommendations_output import ResearchPaperRecommendationsOutput
from .research_paper_search_input import ResearchPaperSearchInput
from .research_paper_search_output import ResearchPaperSearchOutput
from .research_plan_input import ResearchPlanInput
from .research_plan_output import ResearchPlanOutput
from .research_web_cancel_input import ResearchWebCancelInput
from .research_web_cancel_output import ResearchWebCancelOutput
from .research_web_followup_input import ResearchWebFollowupInput
from .research_web_followup_output import ResearchWebFollowupOutput
from .research_web_input import ResearchWebInput
from .research_web_output import ResearchWebOutput
from .research_web_status_input import ResearchWebStatusInput
from .research_web_status_output import ResearchWebStatusOutput
from .semantic_search_transcripts_input import SemanticSearchTranscriptsInput
from .semantic_search_transcripts_output import SemanticSearchTranscriptsOutput
from .session_list_input import SessionListInput
from .session_list_output import SessionListOutput
from .session_register_input import SessionRegisterInput
from .session_register_output import SessionRegisterOutput
from .session_revoke_input import SessionRevokeInput
from .session_revoke_output import SessionRevokeOutput
from .tool_call_input import ToolCallInput
from .tool_call_output import ToolCallOutput
from .tool_describe_input import ToolDescribeInput
from .tool_describe_output import ToolDescribeOutput
from .tool_search_input import ToolSearchInput
from .tool_search_output import ToolSearchOutput
from .toolset_disable_input import ToolsetDisableInput
from .toolset_disable_output import ToolsetDisableOutput
from .toolset_enable_input import ToolsetEnableInput
from .toolset_enable_output import ToolsetEnableOutput
from .toolset_list_input import ToolsetListInput
from .toolset_list_output import ToolsetListOutput
from .transcript_get_input import TranscriptGetInput
from .transcript_get_output import TranscriptGetOutput
from .verify_citation_input import VerifyCitationInput
from .verify_citation_output import VerifyCitationOutput
from .video_analyze_input import VideoAnalyzeInput
from .video_analyze_output import VideoAnalyzeOutput
from .video_batch_analyze_input import VideoBatchAnalyzeInput
from .video_batch_analyze_output import VideoBatchAnalyzeOutput
from .video_chapters_input import VideoChaptersInput
from .video_chapters_output import VideoChaptersOutput
from .video_comments_input import VideoCommentsInput
from .video_comments_output import VideoCommentsOutput
from .video_continue_session_input import VideoContinueSessionInput
from .video_continue_session_output import VideoContinueSessionOutput
from .video_create_session_input import VideoCreateSessionInput
from .video_create_session_output import VideoCreateSessionOutput
from .video_metadata_input import VideoMetadataInput
from .video_metadata_output import VideoMetadataOutput
from .video_playlist_input import VideoPlaylistInput
from .video_playlist_output import VideoPlaylistOutput
from .web_search_input import WebSearchInput
from .web_search_output import WebSearchOutput

__all__ = [
    "AuditLogInput",
    "AuditLogOutput",
    "CatalogAddInput",
    "CatalogAddOutput",
    "CatalogCategoriesInput",
    "CatalogCategoriesOutput",
    "CatalogGetVideoInput",
    "CatalogGetVideoOutput",
    "CatalogImportInput",
    "CatalogImportOutput",
    "CatalogRemoveInput",
    "CatalogRemoveOutput",
    "CatalogSearchInput",
    "CatalogSearchOutput",
    "ContentAnalyzeInput",
    "ContentAnalyzeOutput",
    "ContentBatchAnalyzeInput",
    "ContentBatchAnalyzeOutput",
    "ContentExtractInput",
    "ContentExtractOutput",
    "DeleteIndexedVideoInput",
    "DeleteIndexedVideoOutput",
    "DocumentDeleteInput",
    "DocumentDeleteOutput",
    "DocumentIngestInput",
    "DocumentIngestOutput",
    "DocumentListInput",
    "DocumentListOutput",
    "DocumentSearchInput",
    "DocumentSearchOutput",
    "GetAllChannelTranscriptsInput",
    "GetAllChannelTranscriptsOutput",
    "GetIndexedVideosInput",
    "GetIndexedVideosOutput",
    "IndexChannelTranscriptsInput",
    "IndexChannelTranscriptsOutput",
    "IndexMediaFilesInput",
    "IndexMediaFilesOutput",
    "IndexTranscriptFilesInput",
    "IndexTranscriptFilesOutput",
    "InfraCacheInput",
    "InfraCacheOutput",
    "InfraConfigureInput",
    "InfraConfigureOutput",
    "KnowledgeAskInput",
    "KnowledgeAskOutput",
    "KnowledgeFetchInput",
    "KnowledgeFetchOutput",
    "KnowledgeIngestInput",
    "KnowledgeIngestOutput",
    "KnowledgeReembedInput",
    "KnowledgeReembedOutput",
    "KnowledgeRelatedInput",
    "KnowledgeRelatedOutput",
    "KnowledgeSchemaInput",
    "KnowledgeSchemaOutput",
    "KnowledgeSearchInput",
    "KnowledgeSearchOutput",
    "KnowledgeStatsInput",
    "KnowledgeStatsOutput",
    "MarathonCreateInput",
    "MarathonCreateOutput",
    "MarathonDeleteInput",
    "MarathonDeleteOutput",
    "MarathonGetInput",
    "MarathonGetOutput",
    "MarathonListInput",
    "MarathonListOutput",
    "MediaContactSheetInput",
    "MediaContactSheetOutput",
    "MediaFramesInput",
    "MediaFramesOutput",
    "MediaScenesInput",
    "MediaScenesOutput",
    "MediaScreenTextInput",
    "MediaScreenTextOutput",
    "NameSpeakerInput",
    "NameSpeakerOutput",
    "PlaylistCreateInput",
    "PlaylistCreateOutput",
    "PlaylistDeleteInput",
    "PlaylistDeleteOutput",
    "PlaylistGetInput",
    "PlaylistGetOutput",
    "PlaylistListInput",
    "PlaylistListOutput",
    "PlaylistUpdateInput",
    "PlaylistUpdateOutput",
    "QueueAddVideoInput",
    "QueueAddVideoOutput",
    "QueueAddVideosInput",
    "QueueAddVideosOutput",
    "QueueAdvanceInput",
    "QueueAdvanceOutput",
    "QueueApplyPlaylistInput",
    "QueueApplyPlaylistOutput",
    "QueueClearInput",
    "QueueClearOutput",
    "QueueMoveInput",
    "QueueMoveOutput",
    "QueueRemoveInput",
    "QueueRemoveOutput",
    "QueueStatusInput",
    "QueueStatusOutput",
    "ResearchAssessEvidenceInput",
    "ResearchAssessEvidenceOutput",
    "ResearchAuthorSearchInput",
    "ResearchAuthorSearchOutput",
    "ResearchDeepInput",
    "ResearchDeepOutput",
    "ResearchDocumentInput",
    "ResearchDocumentOutput",
    "ResearchPaperCitationsInput",
    "ResearchPaperCitationsOutput",
    "ResearchPaperDetailsInput",
    "ResearchPaperDetailsOutput",
    "ResearchPaperRecommendationsInput",
    "ResearchPaperRecommendationsOutput",
    "ResearchPaperSearchInput",
    "ResearchPaperSearchOutput",
    "ResearchPlanInput",
    "ResearchPlanOutput",
    "ResearchWebCancelInput",
    "ResearchWebCancelOutput",
    "ResearchWebFollowupInput",
    "ResearchWebFollowupOutput",
    "ResearchWebInput",
    "ResearchWebOutput",
    "ResearchWebStatusInput",
    "ResearchWebStatusOutput",
    "SemanticSearchTranscriptsInput",
    "SemanticSearchTranscriptsOutput",
    "SessionListInput",
    "SessionListOutput",
    "SessionRegisterInput",
    "SessionRegisterOutput",
    "SessionRevokeInput",
    "SessionRevokeOutput",
    "ToolCallInput",
    "ToolCallOutput",
    "ToolDescribeInput",
    "ToolDescribeOutput",
    "ToolSearchInput",
    "ToolSearchOutput",
    "ToolsetDisableInput",
    "ToolsetDisableOutput",
    "ToolsetEnableInput",
    "ToolsetEnableOutput",
    "ToolsetListInput",
    "ToolsetListOutput",
    "TranscriptGetInput",
    "TranscriptGetOutput",
    "VerifyCitationInput",
    "VerifyCitationOutput",
    "VideoAnalyzeInput",
    "VideoAnalyzeOutput",
    "VideoBatchAnalyzeInput",
    "VideoBatchAnalyzeOutput",
    "VideoChaptersInput",
    "VideoChaptersOutput",
    "VideoCommentsInput",
    "VideoCommentsOutput",
    "VideoContinueSessionInput",
    "VideoContinueSessionOutput",
    "VideoCreateSessionInput",
    "VideoCreateSessionOutput",
    "VideoMetadataInput",
    "VideoMetadataOutput",
    "VideoPlaylistInput",
    "VideoPlaylistOutput",
    "WebSearchInput",
    "WebSearchOutput",
]
